/**
 * HttpServer_respond102 over raw HTTP/1.1 sockets, with a real slow step: the service prints the receipt
 * before it answers, on a fake ESC/POS network printer that confirms the printout only after a delay.
 * The interval is the spec's default 9000 ms, `NO` switches it off, and the register's own profile wins over
 * def's, whether the register is named in the query or in the body; HTTP/1.0 clients never get a 1xx.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { DEFAULT_INTERVAL_MS, interimIntervalOf } from '../src/register/maintenance/interim-102.js';
import { decodeXml } from '../src/register/codec/xml.js';
import { FakeEscposPrinter } from './fake-escpos-printer.js';
import { type TestService, post, sale, startTestService } from './helpers.js';

const PROCESSING = /HTTP\/1\.1 102 Processing\r\n\r\n/g;

/** Everything the server sends on one connection until it closes it. */
function rawExchange(port: number, head: string, body: string, contentType = 'application/json'): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(port, '127.0.0.1');
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.write(`${head}\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}

/** The interim answers and the final one of an exchange; every interim answer comes before the final one. */
function split(all: string): { interim: number; status: string; body: string } {
  const final = all.replace(PROCESSING, '');
  assert.equal(all.indexOf(final.slice(0, 12)), all.length - final.length, 'the interim answers come first');
  return { interim: (all.match(PROCESSING) ?? []).length, status: final.slice(0, final.indexOf('\r\n')), body: final.slice(final.indexOf('\r\n\r\n') + 4) };
}

function xmlSale(tn: string, rn?: string): string {
  return `<Tra><ESR ${rn ? `RN="${rn}" ` : ''}TL="1" TT="1" TN="${tn}"><PosA><Pos PN="1" Dsc="Article" TaxG="A" Amt="3.50"/></PosA><PayA><Pay Dsc="Cash" PayG="cash" Amt="3.50"/></PayA></ESR></Tra>`;
}

let printer: FakeEscposPrinter;
let svc: TestService;

const profile = async (rn: string, attributes: string): Promise<void> => {
  const r = await post(`${svc.url}/profile?rn=${rn}`, { Badge: 'B1', Attributes: attributes });
  assert.equal(r.status, 200, r.text);
};
const printing = (): string => `Printer=escpos Printer_Port=${printer.address}`;

before(async () => {
  printer = await FakeEscposPrinter.start();
  svc = await startTestService();
});

after(async () => {
  await svc.stop();
  await printer.stop();
});

describe('HttpServer_respond102', () => {
  test('the default is 9000 ms; NO switches it off; the register own profile wins over def', async () => {
    await profile('def', printing());
    assert.equal(DEFAULT_INTERVAL_MS, 9000);
    assert.equal(interimIntervalOf(svc.ctx, 'def'), 9000, 'absent: the spec default');
    assert.equal(interimIntervalOf(svc.ctx, 'K9'), 9000, 'a register without a profile of its own: def');
    await profile('def', `${printing()} HttpServer_respond102`);
    assert.equal(interimIntervalOf(svc.ctx, 'def'), 9000, 'the bare name');
    await profile('def', `${printing()} HttpServer_respond102=NO`);
    assert.equal(interimIntervalOf(svc.ctx, 'def'), null);
    assert.equal(interimIntervalOf(svc.ctx, 'K9'), null, 'def switched it off for every register without its own value');
    await profile('K2', 'HttpServer_respond102=300');
    assert.equal(interimIntervalOf(svc.ctx, 'K2'), 300);
    await profile('K3', 'HttpServer_respond102=0');
    await profile('def', `${printing()} HttpServer_respond102=250`);
    assert.equal(interimIntervalOf(svc.ctx, 'K3'), null, 'the register own 0 wins over def');
    assert.equal(interimIntervalOf(svc.ctx, 'K9'), 250);
  });

  test('a slow registration gets interim answers at the interval of its register (named in the query or the body), JSON and XML', async () => {
    await profile('def', printing());
    await profile('K2', 'HttpServer_respond102=300');
    printer.state.printDelayMs = 1000;

    // the register named in the query: its own 300 ms
    const json = split(await rawExchange(svc.port, 'POST /register?rn=K2 HTTP/1.1', JSON.stringify(sale({ TN: '1' }))));
    assert.ok(json.interim >= 2, `interim answers: ${json.interim}`);
    assert.equal(json.status, 'HTTP/1.1 200 OK');
    const answer = JSON.parse(json.body);
    assert.equal(answer.TraC.Result.RC, 'OK');
    assert.equal(answer.TraC.SQ, 1);

    // named in the body only (ESR.RN): known once the body is decoded, the interval is still the register's
    const xml = split(await rawExchange(svc.port, 'POST /register HTTP/1.1', xmlSale('2', 'K2'), 'application/xml'));
    assert.ok(xml.interim >= 2, `interim answers: ${xml.interim}`);
    assert.equal(xml.status, 'HTTP/1.1 200 OK');
    const doc = decodeXml(xml.body);
    assert.equal(doc.root, 'TraC');
    assert.equal((doc.body.Result as Record<string, unknown>).RC, 'OK');
    assert.equal(doc.body.SQ, '2');

    // def without the attribute: 9000 ms, so this second-long printout gets none
    const plain = split(await rawExchange(svc.port, 'POST /register HTTP/1.1', JSON.stringify(sale({ TN: '3' }))));
    assert.equal(plain.interim, 0);
    assert.equal(JSON.parse(plain.body).TraC.Result.RC, 'OK');

    // an HTTP/1.0 client gets no 1xx answer (RFC 9110)
    const old = split(await rawExchange(svc.port, 'POST /register?rn=K2 HTTP/1.0', JSON.stringify(sale({ TN: '4' }))));
    assert.equal(old.interim, 0);
    assert.equal(old.status, 'HTTP/1.1 200 OK');

    // the register's own NO while def has an interval
    await profile('def', `${printing()} HttpServer_respond102=200`);
    await profile('K2', 'HttpServer_respond102=NO');
    const off = split(await rawExchange(svc.port, 'POST /register?rn=K2 HTTP/1.1', JSON.stringify(sale({ TN: '5' }))));
    assert.equal(off.interim, 0);
    assert.equal(JSON.parse(off.body).TraC.Result.RC, 'OK');
    const onDef = split(await rawExchange(svc.port, 'POST /register HTTP/1.1', xmlSale('6'), 'application/xml'));
    assert.ok(onDef.interim >= 2, `interim answers: ${onDef.interim}`);
    assert.match(onDef.body, /<Result RC="OK"/);
  });

  test('with no attribute anywhere, a registration of 9.6 s gets one interim answer, at 9 s', async () => {
    await profile('def', printing());
    await profile('K2', '');
    printer.state.printDelayMs = 9600;
    try {
      const started = Date.now();
      let firstInterim = 0;
      const all = await new Promise<string>((resolve, reject) => {
        let text = '';
        const body = JSON.stringify(sale({ TN: '7' }));
        const socket = connect(svc.port, '127.0.0.1');
        socket.setEncoding('latin1');
        socket.on('data', (d: string) => {
          if (!firstInterim && (text + d).includes(' 102 Processing')) firstInterim = Date.now() - started;
          text += d;
        });
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
        socket.write(`POST /register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      });
      const r = split(all);
      assert.equal(r.interim, 1);
      assert.ok(firstInterim >= 8900 && firstInterim < 9600, `first interim answer after ${firstInterim} ms`);
      assert.equal(r.status, 'HTTP/1.1 200 OK');
      assert.equal(JSON.parse(r.body).TraC.Result.RC, 'OK');
    } finally {
      printer.state.printDelayMs = 0;
    }
  });
});
