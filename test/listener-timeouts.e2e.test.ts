/**
 * Slow clients over real sockets (the receive timeouts of listener.ts, made short by the environment):
 * headers or a body that trickle in, a body that stops and a connection that sends nothing are cut with
 * 408 long before the client would be done, while other connections are served meanwhile. A body that
 * keeps flowing gets time by its length, and a request that takes long to answer is never cut.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { type TestService, get, post, sale, startTestService } from './helpers.js';

const HEADERS_MS = 1000;
const REQUEST_MS = 3000;
const IDLE_MS = 1500;

let svc: TestService;
before(async () => {
  svc = await startTestService({ env: { EFR_HEADERS_TIMEOUT_MS: String(HEADERS_MS), EFR_REQUEST_TIMEOUT_MS: String(REQUEST_MS), EFR_BODY_IDLE_TIMEOUT_MS: String(IDLE_MS) } });
});
after(async () => {
  await svc.stop();
});

interface Exchange {
  /** what the server sent */
  answer: string;
  /** how many of the pieces were written before the connection closed */
  sent: number;
  /** false when the client gave up waiting */
  closedByServer: boolean;
}

/** Writes `head` at once, then one piece every `everyMs`; resolves when the connection closes. */
function trickle(head: string, pieces: string[], everyMs: number, giveUpMs = 30_000): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(svc.port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    let gaveUp = false;
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (answer += d));
    // a write after the server's cut may fail; the close below reports what happened
    socket.on('error', () => undefined);
    const next = (): void => {
      if (socket.destroyed || socket.writableEnded || sent >= pieces.length) return;
      socket.write(pieces[sent] as string);
      sent += 1;
    };
    const timer = setInterval(next, everyMs);
    socket.on('connect', () => {
      if (head) socket.write(head);
    });
    const giveUp = setTimeout(() => {
      gaveUp = true;
      socket.destroy();
    }, giveUpMs);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ answer, sent, closedByServer: !gaveUp });
    });
  });
}

const head = (length: number, extra = ''): string => `POST /register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

/** A normal request on another connection works while a slow one is open. */
async function othersServed(): Promise<void> {
  const state = await get(`${svc.url}/state`);
  assert.equal(state.status, 200);
  const r = await post(`${svc.url}/register`, sale());
  assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
}

describe('slow clients are cut', () => {
  test('a body of 100 bytes sent one byte a second: 408 and closed after its time, others served meanwhile', async () => {
    const slow = trickle(head(100), Array.from({ length: 100 }, () => 'x'), 1000);
    await othersServed();
    const r = await slow;
    assert.ok(r.closedByServer, 'the server closed the connection');
    assert.match(r.answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    // cut after REQUEST_MS (3 s), not after the 100 s the client would need
    assert.ok(r.sent < 20, `${r.sent} bytes of the body were sent before the cut`);
    await othersServed();
  });

  test('a body that stops: 408 and closed after the idle time, before its whole time', async () => {
    const body = JSON.stringify(sale());
    const r = await trickle(head(Buffer.byteLength(body)) + body.slice(0, 20), [], 1000);
    assert.ok(r.closedByServer);
    assert.match(r.answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  test('headers sent one byte at a time: 408 and closed after the headers time, others served meanwhile', async () => {
    const text = head(2) + '{}';
    const slow = trickle('', text.split(''), 250);
    await othersServed();
    const r = await slow;
    assert.ok(r.closedByServer);
    assert.match(r.answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.ok(r.sent < text.indexOf('\r\n\r\n'), `${r.sent} of ${text.length} bytes were sent before the cut`);
  });

  test('a connection that sends nothing is closed', async () => {
    const r = await trickle('', [], 1000);
    assert.ok(r.closedByServer);
    assert.match(r.answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  });
});

describe('legitimate slow requests are not cut', () => {
  test('a body in a few pieces with pauses below the idle time registers', async () => {
    const body = JSON.stringify(sale({ TT: '21' }));
    const third = Math.ceil(body.length / 3);
    const r = await trickle(head(Buffer.byteLength(body), 'Connection: close\r\n'), [body.slice(0, third), body.slice(third, 2 * third), body.slice(2 * third)], 500);
    assert.ok(r.closedByServer);
    assert.match(r.answer, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(r.answer, /"RC":"OK"/);
  });

  test('a large body that keeps flowing longer than the request time gets time by its length', async () => {
    // 4000 positions, about 300 KB: REQUEST_MS plus about 4.6 s at 64 KiB/s; sent over about 4 s
    const positions = Array.from({ length: 4000 }, (): [string, string] => ['A', '0.10']);
    const body = JSON.stringify(sale({ TT: '22' }, positions));
    const pieces: string[] = [];
    const size = Math.ceil(body.length / 16);
    for (let i = 0; i < body.length; i += size) pieces.push(body.slice(i, i + size));
    const started = Date.now();
    const r = await trickle(head(Buffer.byteLength(body), 'Connection: close\r\n'), pieces, 250);
    assert.ok(Date.now() - started > REQUEST_MS, 'the body took longer than the plain request time');
    assert.match(r.answer, /^HTTP\/1\.1 200 OK\r\n/, r.answer.slice(0, 300));
    assert.match(r.answer, /"RC":"OK"/);
  });

  test('a transaction that waits longer than every timeout for its register is answered', async () => {
    const tn = '77';
    await post(`${svc.url}/register`, sale({ TN: '76' }));
    const reg = svc.ctx.registers.get('def');
    assert.ok(reg);
    // its TL/TT/TN is locked as by a concurrent transaction: the request is received, then waits
    const lease = await svc.ctx.registers.locks.acquire([`tn|${reg.state.rid}|1/1/${tn}`]);
    const body = JSON.stringify(sale({ TN: tn }));
    const waiting = trickle(head(Buffer.byteLength(body), 'Connection: close\r\n') + body, [], 1000);
    await new Promise((r) => setTimeout(r, HEADERS_MS + REQUEST_MS + IDLE_MS + 1000));
    lease.release();
    const r = await waiting;
    assert.match(r.answer, /^HTTP\/1\.1 200 OK\r\n/, r.answer.slice(0, 300));
    assert.match(r.answer, /"RC":"OK"/);
    assert.match(r.answer, /"TN":"77"/);
  });
});
