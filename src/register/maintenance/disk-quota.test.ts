import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDiskFull } from './disk-quota.js';

const coded = (code: string, cause?: unknown): Error => Object.assign(new Error(code), { code, ...(cause ? { cause } : {}) });

test('a full disk from node, SQLite and PostgreSQL, also as the cause of a wrapping error; other failures are not', () => {
  for (const code of ['ENOSPC', 'EDQUOT', 'EFBIG', 'SQLITE_FULL', '53100']) assert.equal(isDiskFull(coded(code)), true, code);
  assert.equal(isDiskFull(new Error('commit failed', { cause: coded('53100') })), true, 'PostgreSQL disk_full under a wrapper');
  for (const code of ['EACCES', 'SQLITE_BUSY', '40001', '53200']) assert.equal(isDiskFull(coded(code)), false, code);
  assert.equal(isDiskFull(undefined), false);
  assert.equal(isDiskFull('ENOSPC'), false);
});
