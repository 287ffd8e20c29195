/**
 * The journal and status pages over plain HTTP: a verify of a long journal does not hold up the service, runs
 * once per register at a time and stops after its time cap with where to continue; the downloads that change state
 * (backup: the archive mark; TSE export: a log record) are POST forms with the page token; the pages use exactly
 * the `rn` the access hook checked; the page texts are translated (search refusals, chain breaks, the receipt
 * frame's refusal, the recorder's warning).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { archivedUpTo } from '../src/register/maintenance/archive-marks.js';
import { verifyRegisterChain } from '../src/register/journal/verify-register.js';
import { formToken } from '../src/register/ui/forms.js';
import { get, http, post, sale, startTestService, until } from './helpers.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function noticeOf(text: string): string {
  return /class="notice[^"]*"[^>]*>([^<]*)/.exec(text)?.[1] ?? '';
}

async function registerMany(url: string, n: number, query = ''): Promise<void> {
  const workers = 8;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = w; i < n; i += workers) {
        const r = await post(`${url}/register${query}`, sale({}, [['A', '1.00']]));
        assert.equal(r.status, 200, r.text);
      }
    }),
  );
}

test('a verify of a long journal lets /register through, runs once per register, and continues after its time cap', async () => {
  const svc = await startTestService();
  try {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B' })).status, 200);
    const n = 5000;
    await registerMany(svc.url, n);
    const token = `_token=${encodeURIComponent(formToken(svc.dataDir))}`;
    const done: string[] = [];
    const verify = http('POST', `${svc.url}/ui/journal/verify?rn=def`, token, FORM).then((r) => {
      done.push('verify');
      return r;
    });
    await new Promise((r) => setTimeout(r, 60));
    const [second, sold] = await Promise.all([
      http('POST', `${svc.url}/ui/journal/verify?rn=def`, token, FORM),
      post(`${svc.url}/register`, sale({}, [['A', '2.00']])).then((r) => {
        done.push('register');
        return r;
      }),
    ]);
    const first = await verify;
    assert.equal(sold.status, 200, sold.text);
    assert.deepEqual(done, ['register', 'verify'], '/register is answered while the verify runs');
    assert.equal(second.status, 409, 'a second verify of the same register while one runs');
    assert.match(noticeOf(second.text), /already running/);
    assert.equal(first.status, 200);
    assert.match(noticeOf(first.text), new RegExp(`Chain OK: ${n + 1} records of def verified \\(SQ 1 to ${n + 1}\\)`));
    // once it finished, the next one runs
    assert.equal((await http('POST', `${svc.url}/ui/journal/verify?rn=def`, token, FORM)).status, 200);

    // the time cap: a check that runs out of time reports how far it got, and the next continues there
    const rid = svc.ctx.registers.get('def')?.state.rid ?? -1;
    const stopped = await verifyRegisterChain(svc.ctx.store, rid, svc.ctx.signer.publicKey, { maxMs: 0 });
    assert.equal(stopped.ok, true);
    assert.equal(stopped.count, 500);
    assert.equal(stopped.continueFromSq, 501);
    const rest = await verifyRegisterChain(svc.ctx.store, rid, svc.ctx.signer.publicKey, { fromSq: 501 });
    assert.deepEqual([rest.ok, rest.firstSq, rest.lastSq, rest.count, rest.continueFromSq], [true, 501, n + 1, n + 1 - 500, undefined]);
    // the page's continue button posts `from`
    const cont = await http('POST', `${svc.url}/ui/journal/verify?rn=def`, `${token}&from=4001`, FORM);
    assert.match(noticeOf(cont.text), new RegExp(`Chain OK: ${n + 1 - 4000} records of def verified \\(SQ 4001 to ${n + 1}\\)`));

    // a broken chain is reported in the page's language
    const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'));
    try {
      db.exec('DROP TRIGGER journal_no_update');
      db.prepare('UPDATE journal SET hash = zeroblob(32) WHERE sq = 7').run();
    } finally {
      db.close();
    }
    const broken = await http('POST', `${svc.url}/ui/journal/verify?rn=def&lang=de`, token, FORM);
    assert.match(noticeOf(broken.text), /Kette bei SQ 7 von def unterbrochen: der Hash passt nicht zum Inhalt/);
    assert.doesNotMatch(broken.text, /does not match/);
  } finally {
    await svc.stop();
  }
});

test('backup and export downloads are POST forms with the page token: a link or a foreign form sets no archive mark', async () => {
  const svc = await startTestService();
  try {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B' })).status, 200);
    await registerMany(svc.url, 3);
    const token = `_token=${encodeURIComponent(formToken(svc.dataDir))}`;
    const mark = async (): Promise<number | undefined> => (await archivedUpTo(svc.ctx.store, 'def'))?.sq;

    assert.equal((await get(`${svc.url}/ui/journal/backup?rn=def`)).status, 404, 'no GET link starts a backup');
    assert.equal((await get(`${svc.url}/ui/journal/export?rn=def&type=jou`)).status, 404, 'no GET link starts an export');
    const noToken = await http('POST', `${svc.url}/ui/journal/backup?rn=def`, '', FORM);
    assert.equal(noToken.status, 403);
    assert.match(noToken.text, /not sent from this service/);
    const foreign = await http('POST', `${svc.url}/ui/journal/backup?rn=def`, token, { ...FORM, origin: 'http://evil.example' });
    assert.equal(foreign.status, 403, 'the right token from a page of another site');
    assert.equal((await http('POST', `${svc.url}/ui/journal/export?rn=def`, 'type=jou', FORM)).status, 403);
    assert.equal((await http('POST', `${svc.url}/ui/journal/export?rn=def`, `${token}&type=jou`, { ...FORM, origin: 'http://evil.example' })).status, 403);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await mark(), undefined, 'nothing refused marked the journal archived');

    // the page's own forms download
    const exported = await http('POST', `${svc.url}/ui/journal/export?rn=def`, `${token}&type=jou`, { ...FORM, origin: svc.url });
    assert.equal(exported.status, 200);
    assert.match(exported.contentType, /zip/);
    const backup = await http('POST', `${svc.url}/ui/journal/backup?rn=def`, token, { ...FORM, origin: svc.url });
    assert.equal(backup.status, 200);
    assert.match(backup.contentType, /zip/);
    assert.equal(await until('the archive mark', mark), 3);
    const page = await get(`${svc.url}/ui/journal?rn=def`);
    assert.match(page.text, /<form class="backup" method="post" action="\/ui\/journal\/backup\?rn=def"><input type="hidden" name="_token"/);
    assert.match(page.text, /<form class="grid export" method="post" action="\/ui\/journal\/export\?rn=def"><input type="hidden" name="_token"/);
  } finally {
    await svc.stop();
  }
});

test('the pages use the rn the access hook checked: spaces around it are refused, a register of its own is asked for', async () => {
  const svc = await startTestService();
  try {
    const pw = 'register-a-secret';
    await registerMany(svc.url, 2, '?rn=A');
    assert.equal((await post(`${svc.url}/profile?rn=A`, { Badge: 'B', Password: pw })).status, 200);
    assert.equal(svc.ctx.registers.get('def'), undefined, 'only A has a journal');
    assert.equal((await get(`${svc.url}/ui/journal?rn=A`)).status, 401, 'A asks for its password, even from this machine');
    // the hook reads " A" (no password of its own): the page must not show A
    for (const path of ['/ui/journal?rn=%20A', '/ui/journal?rn=A%20', '/ui/journal/receipt?rn=%20A&sq=1', '/ui/journal/paper?rn=%20A&sq=1']) {
      const r = await get(`${svc.url}${path}`);
      assert.equal(r.status, 404, path);
      assert.doesNotMatch(r.text, /data-sq="1"|Article 1/, path);
    }
    // given twice: the hook and the page could read it differently; neither shows it
    const twice = await get(`${svc.url}/ui/journal?rn=A&rn=def`);
    assert.ok(twice.status === 401 || twice.status === 404, String(twice.status));
    assert.doesNotMatch(twice.text, /data-sq="1"/);
    const token = `_token=${encodeURIComponent(formToken(svc.dataDir))}`;
    for (const path of ['/ui/journal/verify?rn=%20A', '/ui/journal/backup?rn=%20A', '/ui/journal/export?rn=%20A']) {
      const r = await http('POST', `${svc.url}${path}`, `${token}&type=jou&rn=A`, FORM);
      assert.equal(r.status, 404, path);
    }
    // verify takes the register from the address only, never from the form
    const viaBody = await http('POST', `${svc.url}/ui/journal/verify`, `${token}&rn=A`, FORM);
    assert.equal(viaBody.status, 404, 'def (the address) has no journal; A of the form is not used');
    assert.doesNotMatch(viaBody.text, /records of A/);
    assert.equal(await archivedUpTo(svc.ctx.store, 'A'), undefined);
    // without rn and without def: to A by its own address, where A's password is asked for
    const redirected = await fetch(`${svc.url}/ui/journal?fn=x`, { redirect: 'manual' });
    assert.equal(redirected.status, 303);
    assert.equal(redirected.headers.get('location'), '/ui/journal?fn=x&rn=A');
    assert.equal((await get(`${svc.url}${redirected.headers.get('location') ?? ''}`)).status, 401);
  } finally {
    await svc.stop();
  }
});

test('the journal and status pages in the page language: search refusals, the receipt frame, the recorder warning', async () => {
  const svc = await startTestService();
  try {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B' })).status, 200);
    await registerMany(svc.url, 1);
    const cfg = await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'ACME' } } });
    assert.equal(cfg.status, 200, cfg.text);
    const cfgSq = Number(cfg.json.CfgC.SQ);

    const type = await get(`${svc.url}/ui/journal?type=XYZ&lang=de`);
    assert.equal(type.status, 400);
    assert.match(noticeOf(type.text), /Art: eine der Datensatzarten der Liste, nicht &quot;XYZ&quot;/);
    assert.doesNotMatch(type.text, /one of Tra/);
    const from = await get(`${svc.url}/ui/journal?from=bad&lang=fr`);
    assert.equal(from.status, 400);
    assert.match(noticeOf(from.text), /Date du : une date AAAA-MM-JJ/);
    assert.match(from.text, /id="error-from">Date du : une date/);
    const cont = await get(`${svc.url}/ui/journal?continuation=zzzz&lang=nl`);
    assert.equal(cont.status, 400);
    assert.match(noticeOf(cont.text), /hoort bij een andere zoekopdracht/);

    const paper = await get(`${svc.url}/ui/journal/paper?rn=def&sq=${cfgSq}&lang=de`);
    assert.equal(paper.status, 404);
    assert.match(paper.text, new RegExp(`Datensatz SQ ${cfgSq} \\(Stammdaten\\) hat keine Druckform`));
    assert.match(paper.text, /<html lang="de">/);

    // the test service has no portal: the recorder stays inactive and says why, in the page's language
    const status = await until('the recorder warning', async () => {
      const r = await get(`${svc.url}/control?lang=de`);
      return r.text.includes('recorder-warning') ? r : undefined;
    });
    assert.equal(status.status, 200);
    assert.match(status.text, /<span class="recorder-state">inaktiv<\/span>/);
    assert.match(status.text, /id="recorder-warning" data-kind="noPortal">Keine Portal-Adresse gesetzt/);
    assert.doesNotMatch(status.text, /the instance stays inactive/);
  } finally {
    await svc.stop();
  }
});

test('the status page shows the transactions of a register with its own password only in its own journal', async () => {
  const svc = await startTestService();
  try {
    assert.equal((await post(`${svc.url}/register?rn=shop`, sale({}, [['A', '7.77']]))).status, 200);
    assert.equal((await post(`${svc.url}/register?rn=open`, sale({}, [['A', '8.88']]))).status, 200);
    // the instance (def) has no credentials: this machine may open /control; shop gets a password of its own
    assert.equal((await post(`${svc.url}/profile?rn=shop`, { Badge: 'B', Password: 'shop-secret' })).status, 200);
    const page = await get(`${svc.url}/control`);
    assert.equal(page.status, 200);
    const section = (rn: string): string => new RegExp(`<section class="register" data-rn="${rn}">([\\s\\S]*?)</section>`).exec(page.text)?.[1] ?? '';
    assert.match(section('open'), /8\.88/, 'a register without credentials of its own is listed with its transactions');
    assert.doesNotMatch(section('shop'), /7\.77/, 'the receipts of a register with its own password are not shown here');
    assert.match(section('shop'), /credentials of its own/);
    // its journal asks for its password
    assert.equal((await get(`${svc.url}/ui/journal?rn=shop`)).status, 401);
  } finally {
    await svc.stop();
  }
});

test('the status page shows the disk quota with every digit it has, in the page language', async () => {
  const svc = await startTestService();
  try {
    for (const [quota, de, en] of [['0.0005', '0,0005', '0.0005'], ['1234.56789', '1.234,56789', '1,234.56789']]) {
      assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', DiskQuota: quota })).status, 200);
      for (const [lang, shown] of [['de', de], ['en', en]]) {
        const page = await get(`${svc.url}/control?lang=${lang}`);
        assert.equal(page.status, 200);
        const usage = /<p id="disk-usage">([^<]*)<\/p>/.exec(page.text)?.[1] ?? '';
        assert.ok(usage.endsWith(` ${shown} MB`), `${quota} in ${lang}: ${usage}`);
      }
    }
  } finally {
    await svc.stop();
  }
});

test("the journal shows a receipt laid out for the register's printer (Printer_Width), the frame and its PDF", async () => {
  const svc = await startTestService();
  try {
    const lines = (page: string): string[] => [...page.matchAll(/<div class="l(?: b)?">([^<]*)<\/div>/g)].map((m) => m[1] ?? '');
    for (const width of [32, 48, 42]) {
      const p = await post(`${svc.url}/profile`, { Badge: 'B', Attributes: width === 42 ? '' : `Printer_Width=${width}` });
      assert.equal(p.status, 200, p.text);
      const r = await post(`${svc.url}/register`, sale({}, [['A', '1.00']]));
      assert.equal(r.status, 200, r.text);
      const sq = String(r.json.TraC.SQ);
      const paper = await get(`${svc.url}/ui/journal/paper?rn=def&sq=${sq}`);
      assert.equal(paper.status, 200, paper.text);
      assert.equal(Math.max(...lines(paper.text).map((l) => l.length)), width, paper.text);
      const page = await get(`${svc.url}/ui/journal/receipt?rn=def&sq=${sq}`);
      const pdf = /href="(\/render\/pdf\?[^"]*)"/.exec(page.text)?.[1]?.replace(/&amp;/g, '&') ?? '';
      assert.equal(new URLSearchParams(pdf.split('?')[1]).get('width'), width === 42 ? null : String(width), pdf);
    }
  } finally {
    await svc.stop();
  }
});
