/** base32 against the test vectors of RFC 4648 section 10, with and without padding, and against coreutils' base32 where it is installed. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { base32 } from './base32.js';

const VECTORS: Array<[string, string]> = [
  ['', ''], ['f', 'MY======'], ['fo', 'MZXQ===='], ['foo', 'MZXW6==='], ['foob', 'MZXW6YQ='], ['fooba', 'MZXW6YTB'], ['foobar', 'MZXW6YTBOI======'],
];

test('base32 gives RFC 4648\'s test vectors, padded and not', () => {
  for (const [plain, encoded] of VECTORS) {
    assert.equal(base32(Buffer.from(plain), true), encoded, plain);
    assert.equal(base32(Buffer.from(plain)), encoded.replace(/=+$/, ''), plain);
  }
});

test('base32 of random bytes is what coreutils base32 writes', (t) => {
  const probe = spawnSync('base32', ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    t.skip('no coreutils base32 on this machine');
    return;
  }
  for (const n of [1, 20, 33, 64]) {
    const bytes = randomBytes(n);
    const r = spawnSync('base32', ['-w', '0'], { input: bytes, encoding: 'utf8' });
    assert.equal(base32(bytes, true), r.stdout.trim(), `${n} bytes`);
  }
});
