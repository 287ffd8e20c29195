/**
 * Peripherals over real HTTP against a fake ESC/POS printer on a loopback TCP port
 * (test/fake-escpos-printer.ts parses the bytes and answers DLE EOT, GS r, GS I): the receipt printed by
 * /register (text and QR), /peri/print, /peri/display, the drawer pulse, drawer/wait with its interim 102,
 * the printer state, paper end as RC NO and the retry printed once and journaled once, GET /last 423 while
 * a slow printout runs, DO=noprint, an unreachable printer, the virtual printer's file, Printer_Log and Print_Log.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { type RunningService, startService } from '../src/register/server.js';
import { drawerWaitTiming } from '../src/register/peripherals/drawer-wait.js';
import { FakeEscposPrinter } from './fake-escpos-printer.js';
import { freePort, get, post, sale, tempDir, until } from './helpers.js';

let svc: RunningService;
let printer: FakeEscposPrinter;
const dataDir = tempDir('efr-peri-');

async function profile(attributes: string): Promise<void> {
  const r = await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: attributes });
  assert.equal(r.status, 200, r.text);
}

const escpos = (): string => `Printer=escpos Printer_Port=${printer.address} Print_Log Printer_Log`;

before(async () => {
  printer = await FakeEscposPrinter.start();
  svc = await startService({ port: 0, host: '127.0.0.1', dataDir, log: true, env: {} });
  await profile(escpos());
});

after(async () => {
  await svc.close();
  await printer.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function resetPrinter(): void {
  Object.assign(printer.state, { paperEnd: false, paperNearEnd: false, coverOpen: false, drawerOpen: false, printDelayMs: 0, answers: true });
}

describe('peripherals with an ESC/POS network printer', () => {
  test('/register prints the receipt before answering: its lines and Fis.Code as the QR code; Print_Log and Printer_Log', async () => {
    resetPrinter();
    const before = printer.printouts.length;
    const r = await post(`${svc.url}/register`, sale({ TN: '1' }));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.TraC.Result.RC, 'OK');
    assert.equal(printer.printouts.length, before + 1, 'printed before the answer');
    const p = printer.printouts.at(-1)!;
    assert.ok(p.lines.some((l) => l.includes('Article 1')), p.lines.join('\n'));
    assert.ok(p.lines.some((l) => l.includes('3.50')));
    assert.deepEqual(p.qr, [r.json.TraC.Fis.Code]);
    assert.ok(p.cut);
    assert.ok(printer.statusRequests.includes(4) && printer.statusRequests.includes(2), 'the status was checked first');
    const sq = r.json.TraC.SQ as string;
    const check = readFileSync(join(dataDir, 'print', 'def', `${sq}.txt`), 'utf8');
    assert.ok(check.includes('Article 1'), check);
    assert.ok(!existsSync(join(dataDir, 'print', 'def', 'unprinted', `${sq}.json`)));
    const log = await until('the printer trace', async () => {
      const text = existsSync(join(dataDir, 'log', 'efr.log')) ? readFileSync(join(dataDir, 'log', 'efr.log'), 'utf8') : '';
      return text.includes('"PRINTER"') && text.includes('GS V') ? text : undefined;
    });
    assert.match(log, /DLE EOT 04/);
    assert.ok(!log.includes('Article'), 'no receipt text in the service log');
  });

  test('Printer_Width lays the printout out for the paper: 32 columns for 58 mm, 48 for font B; the default is 42', async () => {
    resetPrinter();
    const widest = (): number => Math.max(...printer.printouts.at(-1)!.lines.map((l) => l.length));
    for (const [attribute, width] of [['', 42], [' Printer_Width=32', 32], [' Printer_Width=48', 48]] as const) {
      await profile(`${escpos()}${attribute}`);
      const r = await post(`${svc.url}/register`, sale({ TN: `W${width}` }));
      assert.equal(r.status, 200, r.text);
      assert.equal(widest(), width, printer.printouts.at(-1)!.lines.join('\n'));
    }
    const bad = await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: `${escpos()} Printer_Width=40` });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.ProfileC.Result.UserMessage, 'Attributes.Printer_Width must be 32, 42 or 48 columns, got "40"');
    await profile(escpos());
  });

  test('/peri/print prints text lines (code page PC858), not journaled', async () => {
    resetPrinter();
    const lastBefore = await get(`${svc.url}/last`);
    const r = await post(`${svc.url}/peri/print`, 'Hello\r\nGrüße 12,50 €\n', { 'content-type': 'text/plain; charset=utf-8' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.Result.RC, 'OK');
    const p = printer.printouts.at(-1)!;
    assert.deepEqual(p.lines.slice(0, 2), ['Hello', 'Grüße 12,50 €']);
    assert.equal((await get(`${svc.url}/last`)).json.TraC.SQ, lastBefore.json.TraC.SQ, 'nothing journaled');
    const empty = await post(`${svc.url}/peri/print`, '', { 'content-type': 'text/plain' });
    assert.equal(empty.status, 400);
    assert.equal(empty.json.Result.ErrorCode, '#EMPTY_BODY');
  });

  test('/peri/display shows two lines of 20 on the display behind the printer; /peri/drawer pulses', async () => {
    resetPrinter();
    const r = await post(`${svc.url}/peri/display`, 'Total\n12.50 EUR and a long tail', { 'content-type': 'text/plain' });
    assert.equal(r.status, 200, r.text);
    await until('the display text', async () => (printer.display[0] === 'Total' ? true : undefined), 3000);
    assert.deepEqual(printer.display, ['Total', '12.50 EUR and a long']);
    const pulses = printer.drawerPulses;
    const d = await post(`${svc.url}/peri/drawer`);
    assert.equal(d.status, 200, d.text);
    assert.equal(printer.drawerPulses, pulses + 1);
  });

  test('GET /peri/print/state: model, serial, ZI and SimpleState from DLE EOT; paper end; XML', async () => {
    resetPrinter();
    printer.state.paperNearEnd = true;
    printer.state.drawerOpen = true;
    let r = await get(`${svc.url}/peri/print/state`);
    assert.equal(r.status, 200, r.text);
    const s = r.json.PrinterState;
    assert.equal(s.ModuleName, 'TM-T88VI');
    assert.equal(s.ID, 'X5N0123456');
    assert.equal(s.ZI, 0);
    assert.deepEqual(s.SimpleState, { DayOpen: null, ZRequired: null, DrawerOpen: true, PaperNearEnd: true, PaperEnd: false, CoverOpen: false, MemAlmostFull: null, MemFull: null, NextZRequired: null, CertExpires: null });
    printer.state.paperEnd = true;
    r = await get(`${svc.url}/peri/print/state`);
    assert.equal(r.json.PrinterState.SimpleState.PaperEnd, true);
    r = await get(`${svc.url}/peri/print/state`, { accept: 'text/xml' });
    assert.match(r.text, /<PrinterState ModuleName="TM-T88VI" ZI="0" ID="X5N0123456"|<PrinterState[^>]*ModuleName="TM-T88VI"/);
    assert.match(r.text, /PaperEnd="true"/);
    assert.doesNotMatch(r.text, /DayOpen/);
  });

  test('paper end: RC NO naming it, the record journaled; the retry prints it once and registers it once', async () => {
    resetPrinter();
    printer.state.paperEnd = true;
    const before = printer.printouts.length;
    const body = sale({ TN: '2' });
    const failed = await post(`${svc.url}/register`, body);
    assert.equal(failed.status, 406, failed.text);
    assert.equal(failed.json.TraC.Result.RC, 'NO');
    assert.equal(failed.json.TraC.Result.ErrorCode, '#PRINTER_PAPER_END');
    assert.match(failed.json.TraC.Result.UserMessage, /out of paper/);
    assert.equal(printer.printouts.length, before, 'nothing printed');
    printer.state.paperEnd = false;
    const retry = await post(`${svc.url}/register`, body);
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.json.TraC.Result.ErrorCode, '#DUPLICATE');
    assert.equal(printer.printouts.length, before + 1, 'printed by the retry');
    const again = await post(`${svc.url}/register`, body);
    assert.equal(again.json.TraC.Result.ErrorCode, '#DUPLICATE');
    assert.equal(again.json.TraC.SQ, retry.json.TraC.SQ);
    assert.equal(printer.printouts.length, before + 1, 'not printed twice');
    const found = await get(`${svc.url}/find?tn=2&_=Tra`);
    assert.equal(JSON.stringify(found.json).match(/"TN":"2"/g)?.length, 1, found.text);
  });

  test('paper end without a TN: the same request again is the same receipt (printed, not registered twice)', async () => {
    resetPrinter();
    printer.state.coverOpen = true;
    const body = sale({ TL: '7' }, [['A', '9.90']]);
    const failed = await post(`${svc.url}/register`, body);
    assert.equal(failed.json.TraC.Result.ErrorCode, '#PRINTER_COVER_OPEN');
    const sq = (await get(`${svc.url}/last`)).json.TraC.SQ;
    printer.state.coverOpen = false;
    const before = printer.printouts.length;
    const retry = await post(`${svc.url}/register`, body);
    assert.equal(retry.json.TraC.Result.ErrorCode, '#DUPLICATE', retry.text);
    assert.equal(retry.json.TraC.SQ, sq);
    assert.equal(printer.printouts.length, before + 1);
    // printed now: the same content again is a new sale
    const next = await post(`${svc.url}/register`, body);
    assert.equal(next.json.TraC.Result.ErrorCode, undefined);
    assert.equal(Number(next.json.TraC.SQ), Number(sq) + 1);
  });

  test('GET /last answers 423 while the receipt prints, then the registration', async () => {
    resetPrinter();
    printer.state.printDelayMs = 1500;
    const pending = post(`${svc.url}/register`, sale({ TN: '3' }));
    const locked = await until('a 423', async () => {
      const r = await get(`${svc.url}/last`);
      return r.status === 423 ? r : undefined;
    }, 5000);
    assert.equal(locked.json.Result.ErrorCode, '#PRINTING');
    const done = await pending;
    assert.equal(done.status, 200, done.text);
    const last = await get(`${svc.url}/last`);
    assert.equal(last.status, 200);
    assert.equal(last.json.TraC.SQ, done.json.TraC.SQ);
  });

  test('DO=noprint: registered, not printed', async () => {
    resetPrinter();
    const before = printer.printouts.length;
    const r = await post(`${svc.url}/register`, sale({ TN: '4', DO: 'noprint' }));
    assert.equal(r.json.TraC.Result.RC, 'OK');
    assert.equal(printer.printouts.length, before);
  });

  test('drawer/wait answers when the drawer is closed, with interim 102 while it waits', async () => {
    resetPrinter();
    printer.state.drawerOpen = true;
    const interimBefore = drawerWaitTiming.interimMs;
    drawerWaitTiming.interimMs = 300;
    try {
      const interim: number[] = [];
      let finished = false;
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${svc.url}/peri/drawer/wait`, { method: 'POST' }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => {
            finished = true;
            resolve({ status: res.statusCode ?? 0, body });
          });
        });
        req.on('information', (info) => interim.push(info.statusCode));
        req.on('error', reject);
        req.end();
      });
      await new Promise((r) => setTimeout(r, 800));
      assert.equal(finished, false, 'waits while the drawer is open');
      assert.ok(interim.includes(102), 'interim 102 sent');
      printer.state.drawerOpen = false;
      const r = await answer;
      assert.equal(r.status, 200, r.body);
      assert.equal(JSON.parse(r.body).Result.RC, 'OK');
    } finally {
      drawerWaitTiming.interimMs = interimBefore;
    }
  });

  test('an unreachable printer is RC NO #PRINTER_UNREACHABLE, quickly', async () => {
    const port = await freePort();
    await profile(`Printer=escpos Printer_Port=127.0.0.1:${port}`);
    try {
      const r = await post(`${svc.url}/register`, sale({ TN: '5' }));
      assert.equal(r.status, 406, r.text);
      assert.equal(r.json.TraC.Result.ErrorCode, '#PRINTER_UNREACHABLE');
      assert.equal(typeof r.json.TraC.SQ, 'number', 'the journaled receipt is named');
      assert.equal(r.json.TraC.ESR.TN, '5');
      const s = await get(`${svc.url}/peri/print/state`);
      assert.equal(s.status, 406);
    } finally {
      await profile(escpos());
    }
  });

  test('the profile refuses a printer it cannot use; without a printer /peri answers 404 #NO_PRINTER', async () => {
    const bad = await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: 'Printer=laser' });
    assert.equal(bad.status, 400, bad.text);
    const noPort = await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: 'Printer=escpos' });
    assert.equal(noPort.status, 400, noPort.text);
    await profile('');
    try {
      const r = await post(`${svc.url}/peri/drawer`);
      assert.equal(r.status, 404, r.text);
      assert.equal(r.json.Result.ErrorCode, '#NO_PRINTER');
    } finally {
      await profile(escpos());
    }
  });

  test('the virtual printer writes what it prints and displays to files', async () => {
    await profile('Printer=virtual');
    try {
      const r = await post(`${svc.url}/register`, sale({ TN: '6' }));
      assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
      const paper = readFileSync(join(dataDir, 'print', 'def', 'virtual-printer.txt'), 'utf8');
      assert.ok(paper.includes('Article 1') && paper.includes(' cut '), paper);
      assert.ok(paper.includes(r.json.TraC.Fis.Code.slice(0, 20)), 'the code written out');
      await post(`${svc.url}/peri/display`, 'Hello\nWorld', { 'content-type': 'text/plain' });
      assert.equal(readFileSync(join(dataDir, 'print', 'def', 'display.txt'), 'utf8'), 'Hello\nWorld\n');
      const s = await get(`${svc.url}/peri/print/state`);
      assert.equal(s.json.PrinterState.ModuleName, 'virtual printer');
      assert.equal(s.json.PrinterState.SimpleState.PaperEnd, false);
      const w = await post(`${svc.url}/peri/drawer/wait`);
      assert.equal(w.status, 200, w.text);
    } finally {
      await profile(escpos());
    }
  });
});
