import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../shared/clock.js';
import { DigestNonces, digestResponse, md5, parseDigestHeader } from './digest.js';
import { HtdigestFile, parseHtdigest } from './htdigest.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

test('Digest header parsing: quoted strings with escapes and commas, tokens; malformed is undefined', () => {
  const p = parseDigestHeader('Digest username="a\\"b", realm="EFR, x", nc=00000001, qop=auth,uri="/p?a=1,2"');
  assert.deepEqual(Object.fromEntries(p ?? []), { username: 'a"b', realm: 'EFR, x', nc: '00000001', qop: 'auth', uri: '/p?a=1,2' });
  for (const bad of ['Basic abc', 'Digest username="open', 'Digest =x', 'Digest a=1, a=2', 'Digest a', undefined]) assert.equal(parseDigestHeader(bad), undefined, String(bad));
});

test('RFC 2617 section 3.5 example', () => {
  // the example of the RFC: Mufasa, "Circle Of Life", realm testrealm@host.com
  const ha1 = md5('Mufasa:testrealm@host.com:Circle Of Life');
  const r = digestResponse({ ha1, method: 'GET', uri: '/dir/index.html', nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093', nc: '00000001', cnonce: '0a4f113b', qop: 'auth' });
  assert.equal(r, '6629fae49393a05397450978507c4ef1');
});

test('nonces: bound to realm and secret, stale after their lifetime, each count once', () => {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  const nonces = new DigestNonces(clock, 60_000);
  const n = nonces.issue('EFR');
  assert.equal(nonces.use(n, 'EFR', '00000001'), 'ok');
  assert.equal(nonces.use(n, 'EFR', '00000001'), 'replay');
  assert.equal(nonces.use(n, 'EFR', '00000003'), 'ok', 'counts may arrive out of order');
  assert.equal(nonces.use(n, 'EFR', '00000002'), 'ok');
  assert.equal(nonces.use(n, 'EFR.R2', '00000009'), 'stale', 'another realm');
  assert.equal(nonces.use(new DigestNonces(clock).issue('EFR'), 'EFR', '00000001'), 'stale', 'another secret (before a restart)');
  const tampered = `${n.slice(0, 10)}${n[10] === 'A' ? 'B' : 'A'}${n.slice(11)}`;
  assert.equal(nonces.use(tampered, 'EFR', '00000001'), 'stale');
  clock.advance(61_000);
  assert.equal(nonces.use(n, 'EFR', '00000004'), 'stale');
  assert.match(nonces.challenge('EFR', true), /^Digest realm="EFR", qop="auth", algorithm=MD5, nonce="[A-Za-z0-9_-]{48}", opaque="[^"]+", stale=true$/);
});

test('htdigest: lines user:realm:hash, comments and malformed lines skipped; realm EFR.<RN> before EFR; re-read on change', () => {
  const users = parseHtdigest(`# users\nalice:EFR:${md5('alice:EFR:pw')}\nbad line\nbob:EFR.R2:${'A'.repeat(32)}\n:EFR:${'0'.repeat(32)}\ncarol:EFR:short\n`);
  assert.deepEqual(users.map((u) => `${u.user}@${u.realm}`), ['alice@EFR', 'bob@EFR.R2']);
  assert.equal(users[1]?.ha1, 'a'.repeat(32));
  const dir = mkdtempSync(join(tmpdir(), 'efr-htd-'));
  try {
    const file = new HtdigestFile(join(dir, 'htdigest'));
    assert.equal(file.realmFor('def'), undefined, 'no file: no Digest');
    writeFileSync(file.path, `bob:EFR.R2:${md5('bob:EFR.R2:pw')}\n`);
    assert.equal(file.realmFor('R2'), 'EFR.R2');
    assert.equal(file.realmFor('def'), undefined, 'only users of another register');
    writeFileSync(file.path, `bob:EFR.R2:${md5('bob:EFR.R2:pw')}\nalice:EFR:${md5('alice:EFR:pw')}\n`);
    assert.equal(file.realmFor('def'), 'EFR');
    assert.equal(file.realmFor('R3'), 'EFR');
    assert.equal(file.realmFor('R2'), 'EFR.R2');
    assert.equal(file.user('EFR', 'alice')?.ha1, md5('alice:EFR:pw'));
    assert.equal(file.user('EFR', 'bob'), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
