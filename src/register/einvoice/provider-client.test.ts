/**
 * What the service takes from a delivery system's answer, against a real HTTP server on a free port: an
 * answer is read up to a bound (a provider streaming without end does not fill the memory until the timeout),
 * the id, status and reason are kept only as short single-line text (they are journaled, printed on the
 * receipt and shown), and an endpoint whose URL carries credentials is refused without naming them.
 */
import assert from 'node:assert/strict';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { postEinvoice } from './provider-client.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let handler: Handler = (_req, res) => res.end();
let base = '';
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => handler(req, res));
});

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/invoices`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function post(url = base, ms = 10_000): ReturnType<typeof postEinvoice> {
  return postEinvoice({
    endpoint: { url, attribute: 'eDoc_Url', token: 'prod-secret', test: false },
    xml: '<Invoice/>', dd: 'NL', invoiceNumber: '17', idempotencyKey: 'def/1', signal: AbortSignal.timeout(ms),
  });
}

function answer(status: number, body: string): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  };
}

describe('the delivery system\'s answer', () => {
  it('an answer is given up once it passes the bound, not read whole', async () => {
    // 16 MB of blanks: read whole, it would be parsed (and fail as no JSON) instead of being given up
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let left = 256;
      const more = (): void => {
        while (left > 0 && !res.destroyed) {
          left -= 1;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        if (!res.destroyed) res.end('{}');
      };
      more();
    };
    await assert.rejects(post(), /answer is larger than/);
  });

  it('a rejection\'s reason is kept as one line of at most 500 characters', async () => {
    handler = answer(422, JSON.stringify({ status: 'rejected', reason: `line one\nline two\u001b[2J\u0007${'x'.repeat(20_000)}` }));
    const got = await post();
    assert.equal(got.ok, false);
    assert.ok(!got.ok);
    assert.ok(got.reason.length <= 500, `reason of ${got.reason.length} characters`);
    assert.match(got.reason, /^line one line two ?\[2J ?x+$/);
  });

  it('an id or status that is no short text is no readable answer (sent again), not journaled as given', async () => {
    handler = answer(200, JSON.stringify({ id: 'P'.repeat(10_000), status: 'accepted' }));
    await assert.rejects(post(), /id/);
    handler = answer(200, JSON.stringify({ id: 'P-1\n<script>', status: 'accepted' }));
    await assert.rejects(post(), /id/);
    handler = answer(200, JSON.stringify({ id: 'P-1', status: 'accepted'.repeat(100) }));
    await assert.rejects(post(), /status/);
    handler = answer(200, JSON.stringify({ id: 'P-1', status: 'delivered' }));
    assert.deepEqual(await post(), { ok: true, id: 'P-1', status: 'delivered' });
  });

  it('an endpoint with a user and password in its URL is refused, and the message does not carry them', async () => {
    handler = answer(200, JSON.stringify({ id: 'P-1', status: 'accepted' }));
    const url = base.replace('http://', 'http://user:pass-word@');
    await assert.rejects(post(url), (e: unknown) => e instanceof Error && /credentials/.test(e.message) && !e.message.includes('pass-word'));
  });
});
