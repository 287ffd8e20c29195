import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { SqliteJournalStore } from '../journal/sqlite/sqlite-store.js';
import { Profiles } from '../profile/profile.js';
import { hasProfilePassword, isLocal, isLoopback, requireLocalOrPassword } from './local-or-password.js';

function request(remoteAddress: string, headers: Record<string, string> = {}): FastifyRequest {
  return { socket: { remoteAddress }, headers } as unknown as FastifyRequest;
}

test('loopback addresses, also IPv4-mapped; nothing else is local', () => {
  for (const a of ['127.0.0.1', '127.8.9.10', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::FFFF:127.0.0.2', '0:0:0:0:0:ffff:127.0.0.1', '::ffff:7f00:1', '::1%lo']) assert.ok(isLoopback(a), a);
  for (const a of ['10.1.2.3', '128.0.0.1', '::2', '::ffff:10.0.0.1', '::ffff:8000:1', '1::1', '127.0.0.256', 'localhost', '', '::ffff:127.0.0.1.5', ':::1', '::1::']) assert.ok(!isLoopback(a), a);
  assert.ok(isLocal(request('127.0.0.1')));
  for (const h of ['x-forwarded-for', 'forwarded', 'x-real-ip']) assert.ok(!isLocal(request('127.0.0.1', { [h]: '127.0.0.1' })), `${h}: through a proxy is never local`);
});

test('local requests pass; others need the profile password (query or HTTP Basic), of the register or of the instance', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-sec-'));
  const store = new SqliteJournalStore(join(dir, 'j.sqlite'));
  try {
    const profiles = new Profiles(store);
    await profiles.load([]);
    const ctx = { profiles } as unknown as ServiceContext;
    assert.throws(() => requireLocalOrPassword(ctx, request('10.1.2.3'), { password: '' }, 'def', 'GET /retrieve'), /GET \/retrieve is allowed only/, 'no password set: only local');
    await profiles.update('def', { Badge: 'B', Password: 's3cret' });
    await profiles.update('R1', { Badge: 'B1', Password: 'r1-pw' });
    assert.doesNotThrow(() => requireLocalOrPassword(ctx, request('127.0.0.1'), {}, 'def', 'GET /retrieve'));
    assert.throws(() => requireLocalOrPassword(ctx, request('10.1.2.3'), {}, 'def', 'GET /retrieve'), /GET \/retrieve is allowed only from this machine/);
    assert.throws(() => requireLocalOrPassword(ctx, request('10.1.2.3'), { password: 'wrong' }, 'def', 'GET /retrieve'));
    assert.doesNotThrow(() => requireLocalOrPassword(ctx, request('10.1.2.3'), { password: 's3cret' }, 'def', 'GET /retrieve'));
    const basicOf = (pw: string): string => `Basic ${Buffer.from(`any:${pw}`).toString('base64')}`;
    assert.doesNotThrow(() => requireLocalOrPassword(ctx, request('10.1.2.3', { authorization: basicOf('s3cret') }), {}, 'def', 'GET /retrieve'));
    assert.equal(await hasProfilePassword(ctx, request('10.1.2.3', { authorization: basicOf('r1-pw') }), {}, 'R1'), true);
    assert.equal(await hasProfilePassword(ctx, request('10.1.2.3', { authorization: basicOf('s3cret') }), {}, 'R1'), true, 'the instance password opens a register');
    assert.equal(await hasProfilePassword(ctx, request('10.1.2.3', { authorization: basicOf('r1-pw') }), {}, 'def'), false, 'a register password does not open the instance');
    assert.equal(await hasProfilePassword(ctx, request('10.1.2.3', { authorization: 'Basic %%%' }), {}, 'def'), false);
    assert.equal(await hasProfilePassword(ctx, request('10.1.2.3'), { password: 'S3CRET' }, 'def'), false);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
