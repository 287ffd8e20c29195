import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { SqliteJournalStore } from '../journal/sqlite/sqlite-store.js';
import { Profiles } from '../profile/profile.js';
import { isLocal, requireLocalOrPassword } from './local-or-password.js';

function request(remoteAddress: string, headers: Record<string, string> = {}): FastifyRequest {
  return { socket: { remoteAddress }, headers } as unknown as FastifyRequest;
}

test('local requests pass; others need the profile password (query or HTTP Basic)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-sec-'));
  const store = new SqliteJournalStore(join(dir, 'j.sqlite'));
  try {
    const profiles = new Profiles(store);
    await profiles.load([]);
    await profiles.update('def', { Badge: 'B', Password: 's3cret' });
    const ctx = { profiles } as unknown as ServiceContext;
    for (const a of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) assert.ok(isLocal(request(a)), a);
    assert.ok(!isLocal(request('10.1.2.3')));
    assert.doesNotThrow(() => requireLocalOrPassword(ctx, request('127.0.0.1'), {}, 'def', 'GET /retrieve'));
    assert.throws(() => requireLocalOrPassword(ctx, request('10.1.2.3'), {}, 'def', 'GET /retrieve'), /GET \/retrieve is allowed only from this machine/);
    assert.throws(() => requireLocalOrPassword(ctx, request('10.1.2.3'), { password: 'wrong' }, 'def', 'GET /retrieve'));
    assert.doesNotThrow(() => requireLocalOrPassword(ctx, request('10.1.2.3'), { password: 's3cret' }, 'def', 'GET /retrieve'));
    const basic = `Basic ${Buffer.from('any:s3cret').toString('base64')}`;
    assert.doesNotThrow(() => requireLocalOrPassword(ctx, request('10.1.2.3', { authorization: basic }), {}, 'def', 'GET /retrieve'));
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
