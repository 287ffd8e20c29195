import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROUTES, entryOf } from './route-access.js';

test('the table: one rule per method and path; the rules the spec names', () => {
  const seen = new Set<string>();
  for (const e of ROUTES) {
    for (const m of e.methods) {
      const key = `${m} ${e.path}`;
      assert.ok(!seen.has(key), `${key} twice`);
      seen.add(key);
    }
    assert.ok(e.reason.length > 0);
  }
  for (const [m, p] of [['GET', '/retrieve'], ['POST', '/service/restart'], ['GET', '/backup'], ['GET', '/backup/incremental'], ['GET', '/authorization']] as const) {
    assert.equal(entryOf(m, p)?.rule, 'local-or-password', `${m} ${p}`);
  }
  for (const [m, p] of [['GET', '/backup/log'], ['GET', '/jou/reprintcnt'], ['POST', '/jou/reprintcnt'], ['POST', '/register'], ['GET', '/state']] as const) {
    assert.equal(entryOf(m, p)?.rule, 'open', `${m} ${p}`);
  }
  assert.equal(entryOf('HEAD', '/retrieve')?.rule, 'local-or-password', 'HEAD as GET');
  assert.equal(entryOf('GET', '/cer/:id')?.path, '/cer/:serial', 'parameter names do not matter');
  assert.equal(entryOf('GET', '/backup')?.openWith, 'log');
  assert.equal(entryOf('GET', '/nothing'), undefined);
});
