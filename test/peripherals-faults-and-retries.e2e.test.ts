/**
 * Printer faults and retries over real HTTP against the fake ESC/POS printer: a retry without TN is the same
 * sale only while its receipt is the last of its TL/TT; the profile checks the effective printer attributes;
 * an unconfirmed printout is printed again as a copy; the drawer answer is checked; drawer/wait survives a
 * long printout; status before print data; a printer that never answers or closes mid-stream; GET /last after
 * a failed printout.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type RunningService, startService } from '../src/register/server.js';
import { FakeEscposPrinter } from './fake-escpos-printer.js';
import { get, post, sale, tempDir } from './helpers.js';

let svc: RunningService;
let printer: FakeEscposPrinter;
const dataDir = tempDir('efr-peri-faults-');

async function profile(attributes: string, rn?: string): Promise<{ status: number; text: string }> {
  return post(`${svc.url}/profile${rn ? `?RN=${rn}` : ''}`, { Badge: 'B1', Attributes: attributes });
}

before(async () => {
  printer = await FakeEscposPrinter.start();
  svc = await startService({ port: 0, host: '127.0.0.1', dataDir, log: false, env: {} });
  assert.equal((await profile(`Printer=escpos Printer_Port=${printer.address} Print_Log`)).status, 200);
});

after(async () => {
  await svc.close();
  await printer.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function reset(): void {
  Object.assign(printer.state, { paperEnd: false, paperNearEnd: false, coverOpen: false, drawerOpen: false, printDelayMs: 0, answers: true, confirms: true, closeAfterBytes: 0, drawerAnswer: undefined, deafMs: 0 });
}

describe('peripherals: printer faults and retries', () => {
  test('a coffee unprinted, another sale, then a new coffee: journaled as its own record', async () => {
    reset();
    printer.state.paperEnd = true;
    const coffee = sale({ TL: 'L1', TT: 'T9' }, [['A', '2.50']]);
    const a = await post(`${svc.url}/register`, coffee);
    assert.equal(a.json.TraC.Result.ErrorCode, '#PRINTER_PAPER_END');
    const failedSq = Number((await get(`${svc.url}/last`)).json.TraC.SQ);
    printer.state.paperEnd = false;
    const b = await post(`${svc.url}/register`, sale({ TL: 'L1', TT: 'T9' }, [['A', '9.00']]));
    assert.equal(b.json.TraC.Result.RC, 'OK', b.text);
    const c = await post(`${svc.url}/register`, coffee);
    assert.equal(c.status, 200, c.text);
    assert.equal(c.json.TraC.Result.ErrorCode, undefined, 'a new sale, not #DUPLICATE');
    assert.equal(Number(c.json.TraC.SQ), Number(b.json.TraC.SQ) + 1);
    assert.notEqual(Number(c.json.TraC.SQ), failedSq);
  });

  test('GET /last after a failed printout answers the record; the immediate retry without TN is the duplicate', async () => {
    reset();
    printer.state.coverOpen = true;
    const body = sale({ TL: 'L2', TT: 'T1' }, [['A', '1.10']]);
    const failed = await post(`${svc.url}/register`, body);
    assert.equal(failed.status, 406);
    const last = await get(`${svc.url}/last`);
    assert.equal(last.status, 200, last.text);
    assert.equal(last.json.TraC.Result.RC, 'OK');
    printer.state.coverOpen = false;
    const retry = await post(`${svc.url}/register`, body);
    assert.equal(retry.json.TraC.Result.ErrorCode, '#DUPLICATE');
    assert.equal(retry.json.TraC.SQ, last.json.TraC.SQ);
  });

  test('the profile checks the effective printer attributes (own over def), and a change of def against inheriting registers', async () => {
    const badDisplay = await profile('Display_Port=bad_host!', 'R1');
    assert.equal(badDisplay.status, 400, badDisplay.text);
    const inherits = await profile('Printer=escpos', 'R2');
    assert.equal(inherits.status, 200, inherits.text);
    const badTimeout = await profile('Drawer_Timeout=0', 'R3');
    assert.equal(badTimeout.status, 400, badTimeout.text);
    // def without the port: R2 (Printer=escpos of its own) would have none
    const defChange = await profile('Printer=virtual');
    assert.equal(defChange.status, 400, defChange.text);
    assert.match(defChange.text, /R2/);
    const r = await post(`${svc.url}/register`, sale({ RN: 'R2', TN: '1' }));
    assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
  });

  test('a mark that cannot be written: RC NO and nothing journaled', async () => {
    reset();
    const lastBefore = (await get(`${svc.url}/last`)).json.TraC.SQ;
    const dir = join(dataDir, 'print', 'def', 'unprinted');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dataDir, 'print', 'def'), { recursive: true });
    writeFileSync(dir, 'not a folder');
    try {
      const r = await post(`${svc.url}/register`, sale({ TN: '90' }));
      assert.equal(r.status, 406, r.text);
      assert.equal(r.json.TraC.Result.ErrorCode, '#PRINTER_ERROR');
      assert.equal((await get(`${svc.url}/last`)).json.TraC.SQ, lastBefore, 'nothing journaled');
    } finally {
      rmSync(dir, { force: true });
    }
    const ok = await post(`${svc.url}/register`, sale({ TN: '90' }));
    assert.equal(ok.json.TraC.Result.RC, 'OK', ok.text);
    assert.equal(ok.json.TraC.Result.ErrorCode, undefined);
  });

  test('status requests come before the print data in the byte stream', async () => {
    reset();
    const from = printer.received.length;
    const r = await post(`${svc.url}/peri/print`, 'Order check', { 'content-type': 'text/plain' });
    assert.equal(r.status, 200, r.text);
    const bytes = printer.received.subarray(from);
    const text = bytes.indexOf(Buffer.from('Order check'));
    const lastStatus = bytes.lastIndexOf(Buffer.from([0x10, 0x04, 0x04]));
    const firstStatus = bytes.indexOf(Buffer.from([0x10, 0x04, 0x01]));
    assert.ok(firstStatus >= 0 && lastStatus > firstStatus && text > lastStatus, `status ${firstStatus}..${lastStatus}, text ${text}`);
  });

  test('Print_Log names of /peri/print do not collide', async () => {
    reset();
    await Promise.all([1, 2, 3].map((i) => post(`${svc.url}/peri/print`, `line ${i}`, { 'content-type': 'text/plain' })));
    const names = readdirSync(join(dataDir, 'print', 'def')).filter((n) => n.startsWith('peri-'));
    assert.ok(names.length >= 4, names.join());
  });

  test('a printout taken but never confirmed: RC NO with #PRINTER_UNCONFIRMED, the retry prints it marked as a copy, once', async () => {
    reset();
    printer.state.confirms = false;
    const body = sale({ TN: '77' });
    const before = printer.printouts.length;
    const failed = await post(`${svc.url}/register`, body);
    assert.equal(failed.status, 406, failed.text);
    assert.equal(failed.json.TraC.Result.ErrorCode, '#PRINTER_UNCONFIRMED');
    // the receipt is journaled: the error names it, so that the POS can tell it from one never registered
    assert.equal(typeof failed.json.TraC.SQ, 'number');
    assert.equal(failed.json.TraC.ESR.TN, '77');
    assert.ok(failed.json.TraC.ESR.FN, failed.text);
    assert.ok(failed.json.TraC.Fis.Signature, failed.text);
    assert.equal(printer.printouts.length, before + 1, 'the printer took it');
    assert.ok(!printer.printouts.at(-1)!.lines.some((l) => l.includes('COPY')));
    printer.state.confirms = true;
    const retry = await post(`${svc.url}/register`, body);
    assert.equal(retry.json.TraC.Result.ErrorCode, '#DUPLICATE', retry.text);
    assert.equal(retry.json.TraC.SQ, failed.json.TraC.SQ);
    assert.equal(retry.json.TraC.ESR.FN, failed.json.TraC.ESR.FN);
    assert.equal(printer.printouts.length, before + 2);
    assert.ok(printer.printouts.at(-1)!.lines.some((l) => l.includes('COPY')), printer.printouts.at(-1)!.lines.join('\n'));
    await post(`${svc.url}/register`, body);
    assert.equal(printer.printouts.length, before + 2, 'printed once more only');
  });

  test('a printer that closes the connection mid-stream: RC NO, nothing answered OK', async () => {
    reset();
    printer.state.closeAfterBytes = 20;
    const r = await post(`${svc.url}/register`, sale({ TN: '78' }));
    assert.equal(r.status, 406, r.text);
    assert.equal(r.json.TraC.Result.ErrorCode, '#PRINTER_UNCONFIRMED');
  });

  test('/peri/drawer answered as failed: the pulse never reaches the printer afterwards, so the drawer does not open late', async () => {
    reset();
    // the printer hears nothing for 4 s: the status answer after the pulse does not come within 3 s
    printer.state.deafMs = 4000;
    const pulses = printer.drawerPulses;
    const r = await post(`${svc.url}/peri/drawer`);
    assert.equal(r.status, 406, r.text);
    assert.match(r.json.Result.ErrorCode, /^#PRINTER_/);
    // the printer hears again: what the failed job had sent must not arrive now
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(printer.drawerPulses, pulses, 'no late pulse');
    reset();
    const ok = await post(`${svc.url}/peri/drawer`);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(printer.drawerPulses, pulses + 1, 'the next request opens it once');
  });

  test('/peri/drawer: a reply that is no status byte is #PRINTER_ERROR', async () => {
    reset();
    printer.state.drawerAnswer = 0xff;
    const r = await post(`${svc.url}/peri/drawer`);
    assert.equal(r.status, 406, r.text);
    assert.equal(r.json.Result.ErrorCode, '#PRINTER_ERROR');
  });

  test('drawer/wait survives an 8 s printout; Drawer_Timeout ends it', async () => {
    reset();
    printer.state.drawerOpen = true;
    let waitAnswered = false;
    const wait = post(`${svc.url}/peri/drawer/wait`).finally(() => (waitAnswered = true));
    await new Promise((r) => setTimeout(r, 400));
    printer.state.printDelayMs = 8000;
    const print = post(`${svc.url}/peri/print`, 'long report', { 'content-type': 'text/plain' });
    await new Promise((r) => setTimeout(r, 1000));
    const p = await print;
    assert.equal(p.status, 200, p.text);
    assert.equal(waitAnswered, false, 'the wait still runs when the 8 s printout is done');
    printer.state.drawerOpen = false;
    const w = await wait;
    assert.equal(w.status, 200, w.text);
    reset();
    printer.state.drawerOpen = true;
    assert.equal((await profile(`Printer=escpos Printer_Port=${printer.address} Print_Log Drawer_Timeout=1`)).status, 200);
    try {
      const timedOut = await post(`${svc.url}/peri/drawer/wait`);
      assert.equal(timedOut.status, 406, timedOut.text);
      assert.equal(timedOut.json.Result.ErrorCode, '#DRAWER_TIMEOUT');
    } finally {
      assert.equal((await profile(`Printer=escpos Printer_Port=${printer.address} Print_Log`)).status, 200);
    }
  });
});
