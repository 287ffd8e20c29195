import assert from 'node:assert/strict';
import { test } from 'node:test';
import { documentHandle, registerHandle, transactionHandle } from '../render/qr/document-handle.js';
import { activationHandleFields, archiveRecordExtras } from './receipt-handles.js';

const hash = Buffer.alloc(32, 7);
const sig = Buffer.from('a journal signature');

test('activationHandleFields: the register handle GET /recorder/lastdh starts with', () => {
  const f = activationHandleFields({ signer: { keyId: '0123456789abcdef' } }, 'def');
  assert.match(f.registerHandle, /^[A-Z2-7]{16}$/);
  assert.equal(f.registerHandle, registerHandle('0123456789abcdef', 'def'));
  assert.equal(f.registerHandle, documentHandle('0123456789abcdef', 'def', { sig, hash }).register);
  assert.notEqual(activationHandleFields({ signer: { keyId: '0123456789abcdef' } }, 'ATU1$1_1').registerHandle, f.registerHandle, 'one per register');
  assert.notEqual(activationHandleFields({ signer: { keyId: 'fedcba9876543210' } }, 'def').registerHandle, f.registerHandle, 'one per instance');
  assert.deepEqual(Object.keys(f), ['registerHandle'], 'nothing else goes into the activation body');
});

test('archiveRecordExtras: a receipt gets its transaction handle and signature; other records nothing', () => {
  const tra = archiveRecordExtras({ type: 'Tra', sig, hash });
  assert.deepEqual(tra, { th: transactionHandle({ sig, hash }), sig: sig.toString('base64') });
  assert.match(tra.th ?? '', /^[A-Z2-7]{5}$/);
  assert.equal(tra.th, documentHandle('k', 'def', { sig, hash }).transaction, 'the handle /recorder/lastdh ends with');
  // a receipt without a signature: the handle from its hash, no sig field
  const unsigned = archiveRecordExtras({ type: 'Tra', sig: Buffer.alloc(0), hash });
  assert.deepEqual(unsigned, { th: transactionHandle({ sig: Buffer.alloc(0), hash }) });
  assert.notEqual(unsigned.th, tra.th);
  for (const type of ['TraS', 'TraU', 'TraV', 'Cfg', 'log', 'Audit', 'Rep'] as const) {
    assert.deepEqual(archiveRecordExtras({ type, sig, hash }), {}, `${type} is no receipt`);
  }
});
