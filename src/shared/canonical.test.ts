import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJson } from '../register/codec/json.js';
import type { Obj } from '../register/codec/model.js';
import { createHash } from 'node:crypto';
import { canonicalJson, contentHashes } from './canonical.js';

function esrOf(text: string): Obj {
  const esr = decodeJson(text).body.ESR;
  assert.ok(esr && typeof esr === 'object' && !Array.isArray(esr));
  return esr;
}

describe('canonicalJson', () => {
  test('sorts keys at every level and keeps array order', () => {
    assert.equal(canonicalJson({ b: '1', a: { d: '2', c: ['y', 'x'] } }), '{"a":{"c":["y","x"],"d":"2"},"b":"1"}');
    assert.equal(canonicalJson({ b: '1', a: '2' }), canonicalJson({ a: '2', b: '1' }));
    assert.equal(canonicalJson('a"b'), '"a\\"b"');
    assert.equal(canonicalJson([]), '[]');
    assert.equal(canonicalJson({}), '{}');
  });
});

describe('contentHashes', () => {
  const base = '{"Tra":{"ESR":{"D":"2026-11-21T10:00:00","TN":"5","TL":"1","TT":"1","T":"1.50","PosA":[{"_":"Pos","Dsc":"x","TaxG":"A","Amt":"1.50"}]}}}';

  test('16-byte hashes', () => {
    const h = contentHashes(esrOf(base));
    assert.equal(h.ch.length, 16);
    assert.equal(h.rh.length, 16);
    assert.ok(!h.ch.equals(h.rh));
  });

  test('rh ignores D and TN, ch does not', () => {
    const a = contentHashes(esrOf(base));
    const otherD = contentHashes(esrOf(base.replace('2026-11-21T10:00:00', '2026-11-21T10:00:01')));
    const otherTn = contentHashes(esrOf(base.replace('"TN":"5"', '"TN":"6"')));
    const noDTn = contentHashes(esrOf(base.replace('"D":"2026-11-21T10:00:00","TN":"5",', '')));
    assert.ok(a.rh.equals(otherD.rh));
    assert.ok(a.rh.equals(otherTn.rh));
    assert.ok(a.rh.equals(noDTn.rh));
    assert.ok(!a.ch.equals(otherD.ch));
    assert.ok(!a.ch.equals(otherTn.ch));
    assert.ok(!a.ch.equals(noDTn.ch));
  });

  test('the hashes are SHA-256 of the body without D and TN (rh) and of the body, D and TN (ch): the ones journals hold', () => {
    const esr = esrOf(base);
    const { D, TN, ...rest } = esr;
    const body = JSON.stringify(rest);
    const h = contentHashes(esr);
    assert.deepEqual(h.rh, createHash('sha256').update(body).digest().subarray(0, 16));
    assert.deepEqual(h.ch, createHash('sha256').update(`${body}\u0000${String(D)}\u0000${String(TN)}`).digest().subarray(0, 16));
  });

  test('D and TN cannot be swapped into each other', () => {
    const a = contentHashes({ D: 'x', TN: '' });
    const b = contentHashes({ D: '', TN: 'x' });
    assert.ok(!a.ch.equals(b.ch));
  });

  test('white space and JSON number spelling do not matter', () => {
    const a = contentHashes(esrOf(base));
    const spaced = contentHashes(esrOf(JSON.stringify(JSON.parse(base), null, 2)));
    const numbers = contentHashes(esrOf(base.replace('"T":"1.50"', '"T":1.50').replace('"Amt":"1.50"', '"Amt": 1.50')));
    assert.ok(a.ch.equals(spaced.ch));
    assert.ok(a.ch.equals(numbers.ch));
    assert.ok(a.rh.equals(numbers.rh));
  });

  test('any content change changes both hashes', () => {
    const a = contentHashes(esrOf(base));
    for (const changed of [base.replace('"T":"1.50"', '"T":"1.5"'), base.replace('"Dsc":"x"', '"Dsc":"y"'), base.replace('"TT":"1"', '"TT":"2"')]) {
      const b = contentHashes(esrOf(changed));
      assert.ok(!a.ch.equals(b.ch), changed);
      assert.ok(!a.rh.equals(b.rh), changed);
    }
  });
});
