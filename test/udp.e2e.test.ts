/**
 * UDP over real sockets: off unless UdpServer_Port is set; then a datagram with a request gets the answer
 * datagram back, over IPv4 and IPv6; refusals, duplicates, the size limit, no answer larger than a datagram
 * that is no request, UdpServer_disable and UdpServer_Port set by POST /profile.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceContext } from '../src/register/context.js';
import type { JournalRecord } from '../src/register/journal/types.js';
import { type RunningService, startService } from '../src/register/server.js';
import { http, post, sale, startTestService, tempDir } from './helpers.js';

/** Sends one datagram and waits for one answer (or undefined after `ms`). */
function exchange(type: 'udp4' | 'udp6', host: string, port: number, payload: string | Buffer, ms = 10_000): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(type);
    const timer = setTimeout(() => {
      socket.close();
      resolve(undefined);
    }, ms);
    socket.once('message', (msg) => {
      clearTimeout(timer);
      socket.close();
      resolve(msg);
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      socket.close();
      reject(e);
    });
    socket.send(typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload, port, host);
  });
}

async function records(ctx: ServiceContext, rn = 'def'): Promise<JournalRecord[]> {
  const reg = ctx.registers.get(rn);
  if (!reg) return [];
  const out: JournalRecord[] = [];
  for await (const r of ctx.store.range(reg.state.rid, 1)) out.push(r);
  return out;
}

/** A UDP port nothing is bound to now. */
function freeUdpPort(type: 'udp4' | 'udp6' = 'udp4', host = type === 'udp4' ? '127.0.0.1' : '::'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createSocket(type);
    s.once('error', reject);
    s.bind(0, host, () => {
      const port = s.address().port;
      s.close(() => resolve(port));
    });
  });
}

const UDP_PORT = 'SVC_EFR_PROFILE_CFG__DOT__def__DOT__UdpServer_Port';

/** Whether a UDP port is free on the host (nothing bound there). */
function udpFree(type: 'udp4' | 'udp6', host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createSocket(type);
    s.once('error', () => resolve(false));
    s.bind(port, host, () => s.close(() => resolve(true)));
  });
}

describe('UDP', () => {
  let svc: RunningService;
  let port: number;
  const dataDir = tempDir('efr-udp-');

  before(async () => {
    port = await freeUdpPort('udp6');
    // dual stack, like `--host ::`
    svc = await startService({ port: 0, host: '::', dataDir, log: false, env: { [UDP_PORT]: String(port) } });
  });
  after(async () => {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('a request datagram gets its answer datagram on UdpServer_Port, over IPv4 and IPv6; a retry is answered #DUPLICATE', async () => {
    const body = JSON.stringify(sale({ TN: '11' }));
    const first = await exchange('udp4', '127.0.0.1', port, body);
    assert.ok(first, 'an answer');
    const a = JSON.parse(first.toString('utf8')).TraC;
    assert.equal(a.Result.RC, 'OK', first.toString());
    assert.equal(a.ESR.TN, '11');
    assert.ok(a.Fis.Code, 'the receipt code');
    // the POS did not get the answer and sends again (over IPv6 this time)
    const again = await exchange('udp6', '::1', port, body);
    assert.ok(again);
    const b = JSON.parse(again.toString('utf8')).TraC;
    assert.equal(b.Result.RC, 'OK');
    assert.equal(b.Result.ErrorCode, '#DUPLICATE');
    assert.equal(b.SQ, a.SQ);
    assert.equal(b.Fis.Code, a.Fis.Code);
    const tra = (await records(svc.ctx)).filter((r) => r.type === 'Tra');
    assert.deepEqual(tra.map((r) => r.tn), ['11'], 'registered once');
  });

  test('XML with RN as a root attribute goes to that register and is answered in XML', async () => {
    const xml = '<Tra RN="udp2"><ESR TL="1" TT="1" TN="1"><PosA><Pos PN="1" Dsc="Tea" TaxG="A" Amt="2.00"/></PosA><PayA><Pay Dsc="Cash" PayG="cash" Amt="2.00"/></PayA></ESR></Tra>';
    const answer = (await exchange('udp6', '::1', port, xml))?.toString('utf8') ?? '';
    assert.match(answer, /^<\?xml/);
    assert.match(answer, /<TraC SQ="1"><Result RC="OK"\/>/, answer);
    assert.equal((await records(svc.ctx, 'udp2')).filter((r) => r.type === 'Tra').length, 1);
  });

  test('bad requests get RC BAD naming the problem; a datagram over 65,507 bytes is refused naming the limit', async () => {
    const before = (await records(svc.ctx)).length;
    // a POS's request is larger than its refusal, which it gets
    const wrong = JSON.stringify(sale({ TN: '12' }, [['A', 'x']]));
    const missingAnswer = await exchange('udp4', '127.0.0.1', port, wrong);
    assert.ok(missingAnswer && missingAnswer.length <= Buffer.byteLength(wrong));
    const missing = JSON.parse(missingAnswer.toString('utf8')).TraC;
    assert.equal(missing.Result.RC, 'BAD');
    assert.match(missing.Result.UserMessage, /Amt/);
    // a broken request of a POS's usual size gets its #MALFORMED: the refusal is smaller than what came
    const broken = `${JSON.stringify(sale({ TN: '15' })).slice(0, -3)}${' '.repeat(200)}`;
    const malformed = await exchange('udp4', '127.0.0.1', port, broken);
    assert.ok(malformed, 'answered');
    assert.ok(malformed.length <= Buffer.byteLength(broken));
    assert.equal(JSON.parse(malformed.toString('utf8')).TraC.Result.ErrorCode, '#MALFORMED');
    // IPv4 carries at most 65,507 bytes; IPv6 up to 65,527: those are refused
    const big = Buffer.alloc(65_527, ' ');
    big.write(JSON.stringify(sale({ TN: '13' })), 0, 'utf8');
    const refused = JSON.parse((await exchange('udp6', '::1', port, big))?.toString('utf8') ?? '{}').TraC;
    assert.equal(refused.Result.RC, 'BAD');
    assert.equal(refused.Result.ErrorCode, '#TOO_LARGE');
    assert.match(refused.Result.UserMessage, /65507/);
    // the largest datagram is taken
    const largest = Buffer.alloc(65_507, ' ');
    largest.write(JSON.stringify(sale({ TN: '14' })), 0, 'utf8');
    const taken = JSON.parse((await exchange('udp4', '127.0.0.1', port, largest))?.toString('utf8') ?? '{}').TraC;
    assert.equal(taken.Result.RC, 'OK', JSON.stringify(taken));
    assert.equal((await records(svc.ctx)).length, before + 1, 'only the good one is journaled');
  });

  test('a datagram that is refused is never answered by more bytes than it had (a forged sender gets no amplification)', async () => {
    const before = (await records(svc.ctx)).length;
    const garbage: Buffer[] = [Buffer.from([0x00]), Buffer.from('x'), Buffer.from('hello'), Buffer.from('{"X":{}}'), Buffer.from('<a/>'), Buffer.from('[1,2,3]'), Buffer.alloc(100, 0xff), Buffer.from(`{"Tra":${' '.repeat(60)}`), Buffer.from('<Tra/>'), Buffer.from('{"Tra":{}}'), Buffer.from('{"Tra":{"ESR":{}}}')];
    const answers = await Promise.all(garbage.map((g, i) => (i % 2 ? exchange('udp4', '127.0.0.1', port, g, 500) : exchange('udp6', '::1', port, g, 500))));
    for (const [i, g] of garbage.entries()) {
      const answer = answers[i];
      assert.ok(answer === undefined || answer.length <= g.length, `${g.length} bytes in, ${answer?.length} bytes out`);
    }
    assert.equal(answers[0], undefined, 'one byte: no answer');
    assert.equal(answers[2], undefined, '"hello": its refusal is larger, so none');
    assert.equal(answers[8], undefined, '<Tra/>: a request root, but refused, and the refusal is larger');
    assert.equal((await records(svc.ctx)).length, before, 'none of them registered');
    // the service still works
    const ok = JSON.parse((await exchange('udp4', '127.0.0.1', port, JSON.stringify(sale({ TN: '16' }))))?.toString('utf8') ?? '{}').TraC;
    assert.equal(ok.Result.RC, 'OK');
  });

  test('an answer larger than a datagram leaves out Fis.QR and says so', async () => {
    const r = await post(`http://127.0.0.1:${svc.port}/profile?rn=udpqr`, { Badge: 'B', Attributes: 'Fis_QR="type=bmp&size=10&bits=24"' });
    assert.equal(r.status, 200, r.text);
    const answer = await exchange('udp4', '127.0.0.1', port, JSON.stringify({ Tra: { RN: 'udpqr', ESR: sale({ TN: '1' }).Tra.ESR } }));
    assert.ok(answer);
    assert.ok(answer.length <= 65_507);
    const a = JSON.parse(answer.toString('utf8')).TraC;
    assert.equal(a.Result.RC, 'OK');
    assert.ok(a.Fis.Code);
    assert.equal(a.Fis.QR, undefined);
    assert.match(a.Result.Warning.join(' '), /larger than one datagram .* 65507 bytes\): Fis\.QR left out/);
  });
});

/** A self-signed CA certificate (PEM) made by the openssl command line. */
function caPem(dir: string): Buffer {
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '30', '-subj', '/CN=EFR UDP test CA', '-addext', 'basicConstraints=critical,CA:TRUE'], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return readFileSync(join(dir, 'ca.pem'));
}

function logText(dataDir: string): string {
  const path = join(dataDir, 'log', 'efr.log');
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

describe('UDP and client certificates', () => {
  test('cer/client exists at start: no UDP socket although UdpServer_Port is set, and the log says why', async () => {
    const dataDir = tempDir('efr-udp-cer-');
    mkdirSync(join(dataDir, 'cer', 'client'), { recursive: true });
    const port = await freeUdpPort();
    const svc = await startService({ port: 0, host: '127.0.0.1', dataDir, log: true, env: { [UDP_PORT]: String(port) } });
    try {
      assert.ok(svc.port > 0, 'the HTTP listener runs');
      assert.equal(await udpFree('udp4', '127.0.0.1', port), true, 'nothing bound to the UDP port');
      assert.equal(await exchange('udp4', '127.0.0.1', port, JSON.stringify(sale({ TN: '1' })), 300), undefined);
      assert.equal(svc.ctx.registers.get('def'), undefined, 'nothing registered');
    } finally {
      await svc.close();
    }
    assert.match(logText(dataDir), /client certificates are required \(the folder cer\/client exists\): no UDP interface/);
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('client certificates switched on while running (POST /cer/ca): the UDP socket closes', async () => {
    const dataDir = tempDir('efr-udp-cer-late-');
    const port = await freeUdpPort();
    const svc = await startService({ port: 0, host: '127.0.0.1', dataDir, log: true, env: { [UDP_PORT]: String(port) } });
    try {
      const first = JSON.parse((await exchange('udp4', '127.0.0.1', port, JSON.stringify(sale({ TN: '1' }))))?.toString('utf8') ?? '{}').TraC;
      assert.equal(first.Result.RC, 'OK', 'UDP works before');
      const work = tempDir('efr-udp-ca-');
      const uploaded = await post(`${svc.url}/cer/ca`, caPem(work).toString('utf8'), { 'content-type': 'application/x-pem-file' });
      rmSync(work, { recursive: true, force: true });
      assert.equal(uploaded.status, 200, uploaded.text);
      assert.equal(existsSync(join(dataDir, 'cer', 'client')), true);
      const deadline = Date.now() + 10_000;
      while (!(await udpFree('udp4', '127.0.0.1', port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(await udpFree('udp4', '127.0.0.1', port), true, 'the UDP socket is closed');
      assert.equal(await exchange('udp4', '127.0.0.1', port, JSON.stringify(sale({ TN: '2' })), 300), undefined);
      assert.deepEqual((await records(svc.ctx)).filter((r) => r.type === 'Tra').map((r) => r.tn), ['1'], 'nothing registered over UDP since');
    } finally {
      await svc.close();
    }
    assert.match(logText(dataDir), /no UDP interface \(a datagram carries no certificate\); the UDP socket is closed/);
    rmSync(dataDir, { recursive: true, force: true });
  });
});

describe('UDP settings', () => {
  test('default settings: no UDP socket, on the HTTP port or elsewhere; a datagram to the HTTP port gets no answer', async () => {
    const dataDir = tempDir('efr-udp-default-');
    const svc = await startService({ port: 0, host: '127.0.0.1', dataDir, log: true, env: {} });
    try {
      assert.equal(await udpFree('udp4', '127.0.0.1', svc.port), true, 'nothing bound to UDP on the HTTP port');
      for (const payload of [Buffer.from([0x41]), Buffer.from(JSON.stringify(sale({ TN: '1' })))]) {
        assert.equal(await exchange('udp4', '127.0.0.1', svc.port, payload, 500), undefined, `${payload.length} bytes: no answer`);
      }
      assert.equal(svc.ctx.registers.get('def'), undefined, 'nothing registered');
      const state = await http('GET', `${svc.url}/state`);
      assert.equal(state.status, 200);
      assert.ok(!/udp/i.test(state.text), 'GET /state claims no UDP interface');
      const r = await post(`${svc.url}/register`, sale({ TN: '2' }));
      assert.equal(r.status, 200, 'HTTP serves as before');
    } finally {
      await svc.close();
    }
    assert.match(logText(dataDir), /UdpServer_Port not set: no UDP interface/);
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('UdpServer_Port set: a real registration over UDP, nothing on the HTTP port, one garbage byte gets no more than one byte', async () => {
    const port = await freeUdpPort();
    const svc = await startTestService({ env: { [UDP_PORT]: String(port) } });
    try {
      assert.equal(await udpFree('udp4', '127.0.0.1', svc.port), true, 'not on the HTTP port');
      const a = JSON.parse((await exchange('udp4', '127.0.0.1', port, JSON.stringify(sale({ TN: '7' }))))?.toString('utf8') ?? '{}').TraC;
      assert.equal(a.Result.RC, 'OK');
      assert.ok(a.Fis.Code, 'the receipt code');
      const tra = await http('GET', `${svc.url}/tra?tl=1&tt=1&tn=7`);
      assert.equal(tra.status, 200, tra.text);
      assert.equal(tra.json.Tra.SQ, a.SQ, 'journaled: the same transaction over HTTP');
      assert.equal(tra.json.Tra.ESR.TN, '7');
      const garbage = await exchange('udp4', '127.0.0.1', port, Buffer.from([0x7a]), 500);
      assert.ok(garbage === undefined || garbage.length <= 1, `1 byte in, ${garbage?.length} bytes out`);
    } finally {
      await svc.stop();
    }
  });

  test('UdpServer_disable: no UDP socket even with UdpServer_Port', async () => {
    const port = await freeUdpPort();
    const off = await startTestService({ env: { SVC_EFR_PROFILE_CFG__DOT__def__DOT__UdpServer_disable: 'true', [UDP_PORT]: String(port) } });
    try {
      assert.equal(await udpFree('udp4', '127.0.0.1', port), true, 'nothing bound to UdpServer_Port');
      assert.equal(await udpFree('udp4', '127.0.0.1', off.port), true, 'nothing bound to the HTTP port');
      assert.equal(await exchange('udp4', '127.0.0.1', port, JSON.stringify(sale()), 300), undefined);
    } finally {
      await off.stop();
    }
  });

  test('UdpServer_Port set by POST /profile opens UDP there, a new value moves it, removing it closes it', async () => {
    const svc = await startTestService();
    const until = async (check: () => Promise<boolean>): Promise<boolean> => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        if (await check()) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    };
    try {
      const first = await freeUdpPort();
      let r = await post(`${svc.url}/profile`, { Badge: 'B', Attributes: `UdpServer_Port=${first}` });
      assert.equal(r.status, 200, r.text);
      let answer: Buffer | undefined;
      const deadline = Date.now() + 10_000;
      while (!answer && Date.now() < deadline) answer = await exchange('udp4', '127.0.0.1', first, JSON.stringify(sale({ TN: '1' })), 200);
      assert.equal(JSON.parse(answer?.toString('utf8') ?? '{}').TraC.Result.RC, 'OK', 'opened');
      const second = await freeUdpPort();
      r = await post(`${svc.url}/profile`, { Badge: 'B', Attributes: `UdpServer_Port=${second}` });
      assert.equal(r.status, 200, r.text);
      assert.ok(await until(() => udpFree('udp4', '127.0.0.1', first)), 'the old port is closed');
      const moved = JSON.parse((await exchange('udp4', '127.0.0.1', second, JSON.stringify(sale({ TN: '2' }))))?.toString('utf8') ?? '{}').TraC;
      assert.equal(moved.Result.RC, 'OK', 'moved');
      r = await post(`${svc.url}/profile`, { Badge: 'B', Attributes: '' });
      assert.equal(r.status, 200, r.text);
      assert.ok(await until(() => udpFree('udp4', '127.0.0.1', second)), 'closed once UdpServer_Port is gone');
      assert.equal(await exchange('udp4', '127.0.0.1', second, JSON.stringify(sale({ TN: '3' })), 300), undefined);
      assert.equal(await udpFree('udp4', '127.0.0.1', svc.port), true, 'never on the HTTP port');
    } finally {
      await svc.stop();
    }
  });
});
