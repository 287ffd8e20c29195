/**
 * The portal when its PostgreSQL server goes away: the portal reaches the real
 * server through a TCP relay in this test; closing the relay cuts the connections like an outage. Requests then
 * answer 503 SERVICE_UNAVAILABLE in the envelope (never a 500), and work again once the server is reachable.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { rmSync } from 'node:fs';
import { systemClock } from '../src/shared/clock.js';
import { initPortal } from '../src/portal/init.js';
import { type RunningPortal, startPortal } from '../src/portal/server.js';
import { type ScratchSchema, createScratchSchema, testPgUrl } from './scratch-schema.js';
import { http, tempDir } from './helpers.js';

/** A relay from a local port to the PostgreSQL server that can be cut and restored on the same port. */
class Relay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('portal: the database goes away (PostgreSQL)', () => {
  const dataDir = tempDir('efr-portal-outage-');
  let scratch: ScratchSchema;
  let relay: Relay;
  let portal: RunningPortal;
  let token: string;
  let rootId: number;

  before(async () => {
    scratch = await createScratchSchema(testPgUrl());
    const target = new URL(scratch.url);
    relay = new Relay({ host: target.hostname, port: Number(target.port || 5432) });
    await relay.open();
    const via = new URL(scratch.url);
    via.hostname = '127.0.0.1';
    via.port = String(relay.port);
    via.searchParams.set('options', `-c search_path=${scratch.schema},public`);
    portal = await startPortal({ port: 0, host: '127.0.0.1', dataDir, log: false, clock: systemClock, dbUrl: via.toString() });
    const init = await initPortal(portal.store, systemClock);
    rootId = init.organization.id;
    const t = await http('POST', `${portal.url}/api/v1/auth/token`, { clientId: init.clientId, clientSecret: init.clientSecret });
    assert.equal(t.status, 200, t.text);
    token = t.json.access_token as string;
  });
  after(async () => {
    await relay?.open();
    await portal?.close();
    await relay?.cut();
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('answers 503 in the envelope while the database is unreachable, and recovers', async () => {
    const get = () => http('GET', `${portal.url}/api/v1/organizations/${rootId}`, undefined, { authorization: `Bearer ${token}` });
    assert.equal((await get()).status, 200);
    await relay.cut();
    const down = await get();
    assert.equal(down.status, 503, down.text);
    assert.equal(down.json.success, false);
    assert.equal(down.json.errorCode, 'SERVICE_UNAVAILABLE');
    assert.match(down.json.errorMessage, /not available/);
    const search = await http('POST', `${portal.url}/api/v1/companies/search`, {}, { authorization: `Bearer ${token}` });
    assert.equal(search.status, 503, search.text);
    await relay.open();
    const up = await get();
    assert.equal(up.status, 200, up.text);
  });
});
