/**
 * Register notifications on a real portal (SQLite; PostgreSQL with EFR_TEST_PG): events an
 * instance reports (credential, validation), one open notification per register and code, REGISTER_SILENT by the
 * scheduler with a ManualClock (raised after the configured time, escalated, closed when heard from), texts in
 * en and de, mail to the contacts of the matching type as .eml files in the outbox and over a real loopback SMTP
 * server, and a mail failure that loses nothing.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { ManualClock } from '../src/shared/clock.js';
import { STORE_NAME, type TestPortal, startTestPortal } from './portal-helpers.js';
import { http } from './helpers.js';

const cleanup: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

const HOUR = 3600_000;
const T0 = new Date('2026-03-02T08:00:00.000Z');

interface Setup {
  companyId: number;
  registerNumber: string;
  token: string;
}

async function companyWithContacts(p: TestPortal, name = 'Bäckerei Müller GmbH'): Promise<Setup> {
  const c = await p.call('POST', '/api/v1/companies', { parentEntityId: p.rootId, name, taxId: 'ATU13585627', address: 'Graben 1', city: 'Wien', zip: '1010', countryCode: 'AT' });
  assert.equal(c.status, 200, c.text);
  const company = c.json.company as { id: number; badge: string };
  const contacts = [
    { contactName: 'IT Team', emailAddress: 'it@example.at', contactType: 'TechnicalContact', languageCode: 'en' },
    { contactName: 'Sepp Technik', emailAddress: 'sepp@example.at', contactType: 'TechnicalContact', languageCode: 'de-AT' },
    { contactName: 'Steuerberatung', emailAddress: 'elster@example.at', contactType: 'ElsterContact', languageCode: 'de' },
    { contactName: 'Buchhaltung', emailAddress: 'invoice@example.at', contactType: 'InvoiceContact', languageCode: 'de' },
  ];
  for (const x of contacts) assert.equal((await p.call('POST', '/api/v1/contacts', { companyId: company.id, ...x })).status, 200);
  const a = await http('POST', `${p.url}/api/v1/recorder/activate`, { badge: company.badge, registerNumber: 'ATU13585627-KASSE-1', versionNumber: '1.0.0' });
  assert.equal(a.status, 200, a.text);
  return { companyId: company.id, registerNumber: a.json.registerNumber as string, token: a.json.token as string };
}

const report = (p: TestPortal, token: string | null, body: unknown) =>
  http('POST', `${p.url}/api/v1/recorder/events`, body as object, token === null ? {} : { authorization: `Bearer ${token}` });

interface Listed { registerNumber: string; eventCode: string; descriptionShort: string; descriptionLong: string; initialTimestamp: string; currentLevel: number; closedAt: string | null; companyName: string }

async function listed(p: TestPortal, companyId: number, languageCode = 'en'): Promise<Listed[]> {
  await p.renewAdmin(); // the clock moves in hours: a fresh token
  const r = await p.call('GET', `/api/v1/companies/${companyId}/notifications?languageCode=${languageCode}`);
  assert.equal(r.status, 200, r.text);
  return r.json.notifications as Listed[];
}

async function outbox(p: TestPortal): Promise<ParsedMail[]> {
  await p.context.notifier?.idle();
  const dir = join(p.dataDir, 'portal', 'outbox');
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  assert.ok(names.every((n) => n.endsWith('.eml')), `only finished .eml files: ${names.join(', ')}`);
  return Promise.all(names.map((n) => simpleParser(readFileSync(join(dir, n)))));
}

const toOf = (m: ParsedMail): string => (Array.isArray(m.to) ? m.to.map((x) => x.text).join(', ') : m.to?.text ?? '');

describe(`notifications (${STORE_NAME})`, () => {
  const clock = new ManualClock(T0);
  let p: TestPortal;
  let s: Setup;
  let seen = 0;
  /** the mails written since the last call */
  const newMails = async (): Promise<ParsedMail[]> => {
    const all = await outbox(p);
    const fresh = all.slice(seen);
    seen = all.length;
    return fresh;
  };

  test('setup: a portal with a 1 h silence and a 2 h escalation period, mail to the outbox', async () => {
    p = await startTestPortal({ clock, portal: { silentAfterMs: HOUR, escalateAfterMs: 2 * HOUR, schedulerIntervalMs: 3_600_000 } });
    cleanup.push(() => p.stop());
    s = await companyWithContacts(p);
    assert.equal(p.context.notifier?.mailTarget, join(p.dataDir, 'portal', 'outbox'));
  });

  test('the events route wants the instance credential and a valid body', async () => {
    const ok = { events: [{ eventCode: 'DISK_OK', at: T0.toISOString() }] };
    const none = await report(p, null, ok);
    assert.equal(none.status, 401, none.text);
    assert.equal(none.json.success, false);
    assert.equal((await report(p, 'not-a-token', ok)).status, 401);
    const bad = async (body: unknown, field: RegExp): Promise<void> => {
      const r = await report(p, s.token, body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.match(JSON.stringify(r.json.validationErrors), field, r.text);
    };
    await bad({ events: [{ eventCode: 'COFFEE_EMPTY', at: T0.toISOString() }] }, /eventCode/);
    await bad({ events: [{ eventCode: 'REGISTER_SILENT', at: T0.toISOString() }] }, /eventCode/);
    await bad({ events: [{ eventCode: 'TSE_FAILURE' }] }, /at/);
    await bad({ events: [{ eventCode: 'TSE_FAILURE', at: 'yesterday' }] }, /at/);
    await bad({ events: [] }, /events/);
    await bad({ events: [{ eventCode: 'TSE_FAILURE', at: T0.toISOString(), extra: 1 }] }, /extra|events/);
    await bad({ events: [{ eventCode: 'TSE_FAILURE', at: T0.toISOString(), detail: 'x'.repeat(1001) }] }, /detail/);
    assert.deepEqual(await listed(p, s.companyId), [], 'nothing raised by refused requests');
    const r = await report(p, s.token, ok);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual({ ...r.json, errorCode: undefined, errorMessage: undefined, errorMessageTranslated: undefined, validationErrors: undefined },
      { success: true, registerNumber: s.registerNumber, raised: 0, repeated: 0, closed: 0, errorCode: undefined, errorMessage: undefined, errorMessageTranslated: undefined, validationErrors: undefined });
  });

  test('TSE_ACTIVATED: a notice listed in en and de, mailed to the ELSTER and technical contacts in their language', async () => {
    const at = new Date(T0.getTime() - 60_000).toISOString();
    const r = await report(p, s.token, { events: [{ eventCode: 'TSE_ACTIVATED', at, detail: 'TSE serial 4f2a…' }] });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.raised, 1);
    const [en] = await listed(p, s.companyId);
    assert.ok(en);
    assert.equal(en.eventCode, 'TSE_ACTIVATED');
    assert.equal(en.registerNumber, s.registerNumber);
    assert.equal(en.initialTimestamp, at, 'the time the instance saw it');
    assert.equal(en.currentLevel, 1);
    assert.equal(en.closedAt, T0.toISOString(), 'a notice is closed when raised');
    assert.equal(en.companyName, 'Bäckerei Müller GmbH');
    assert.match(en.descriptionShort, /^TSE of register ATU13585627-KASSE-1 activated$/);
    assert.match(en.descriptionLong, /CurrentLevel: 1 \(information\)\. CompanyType: Productive\.$/);
    assert.match(en.descriptionLong, /TSE serial 4f2a/);
    const [de] = await listed(p, s.companyId, 'de-AT');
    assert.match(de?.descriptionShort ?? '', /^TSE der Kasse ATU13585627-KASSE-1 in Betrieb genommen$/);
    assert.match(de?.descriptionLong ?? '', /Finanzamt.*CurrentLevel: 1 \(Information\)\. CompanyType: Productive\.$/);

    const mails = await newMails();
    assert.deepEqual(mails.map(toOf).sort(), ['elster@example.at', 'it@example.at', 'sepp@example.at'], 'not the invoice contact');
    const elster = mails.find((m) => toOf(m) === 'elster@example.at');
    assert.equal(elster?.subject, '[efr] TSE der Kasse ATU13585627-KASSE-1 in Betrieb genommen');
    assert.match(elster?.text ?? '', /Guten Tag Steuerberatung,/);
    assert.match(elster?.text ?? '', /§ 146a Abs\. 4 AO/);
    assert.match(elster?.text ?? '', /Firma: Bäckerei Müller GmbH/);
    const it = mails.find((m) => toOf(m) === 'it@example.at');
    assert.equal(it?.subject, '[efr] TSE of register ATU13585627-KASSE-1 activated');
    assert.match(it?.text ?? '', /Hello IT Team,\n\nA TSE was put into service for register ATU13585627-KASSE-1/);
    assert.equal(it?.from?.value[0]?.address, 'portal@localhost');
    // a second activation (a new TSE) is a notice of its own
    assert.equal((await report(p, s.token, { events: [{ eventCode: 'TSE_ACTIVATED', at: T0.toISOString() }] })).json.raised, 1);
    assert.equal((await listed(p, s.companyId)).filter((n) => n.eventCode === 'TSE_ACTIVATED').length, 2);
    assert.equal((await newMails()).length, 3);
  });

  test('TSE_FAILURE: one open notification while it lasts, closed by TSE_RECOVERED, raised anew by the next failure', async () => {
    const r = await report(p, s.token, { events: [
      { eventCode: 'TSE_FAILURE', at: T0.toISOString(), detail: 'TSE ausgefallen: no answer' },
      { eventCode: 'TSE_FAILURE', at: T0.toISOString(), detail: 'TSE ausgefallen: again' },
    ] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.raised, r.json.repeated, r.json.closed], [1, 1, 0]);
    assert.equal((await report(p, s.token, { events: [{ eventCode: 'TSE_FAILURE', at: T0.toISOString() }] })).json.repeated, 1);
    const open = (await listed(p, s.companyId)).filter((n) => n.eventCode === 'TSE_FAILURE');
    assert.equal(open.length, 1);
    assert.equal(open[0]?.closedAt, null);
    assert.equal(open[0]?.currentLevel, 2);
    assert.match(open[0]?.descriptionLong ?? '', /no answer.*CurrentLevel: 2 \(warning\)/);
    const mails = await newMails();
    assert.deepEqual(mails.map(toOf).sort(), ['it@example.at', 'sepp@example.at'], 'technical contacts, once');
    assert.equal(mails.find((m) => toOf(m) === 'sepp@example.at')?.subject, '[efr] TSE-Ausfall bei Kasse ATU13585627-KASSE-1');
    const rec = await report(p, s.token, { events: [{ eventCode: 'TSE_RECOVERED', at: T0.toISOString() }] });
    assert.equal(rec.json.closed, 1);
    assert.equal((await listed(p, s.companyId)).find((n) => n.eventCode === 'TSE_FAILURE')?.closedAt, T0.toISOString());
    assert.equal((await report(p, s.token, { events: [{ eventCode: 'TSE_RECOVERED', at: T0.toISOString() }] })).json.closed, 0, 'nothing open');
    assert.equal((await newMails()).length, 0, 'no mail for a recovery');
    // beyond the reopen period (10 minutes by default): a new notification
    clock.advance(10 * 60_000 + 1000);
    assert.equal((await report(p, s.token, { events: [{ eventCode: 'TSE_FAILURE', at: T0.toISOString() }] })).json.raised, 1);
    assert.equal((await listed(p, s.companyId)).filter((n) => n.eventCode === 'TSE_FAILURE').length, 2);
    assert.equal((await newMails()).length, 2);
    assert.equal((await report(p, s.token, { events: [{ eventCode: 'TSE_RECOVERED', at: T0.toISOString() }] })).json.closed, 1);
    await newMails();
  });

  test('REGISTER_SILENT: raised by the scheduler after the configured time, escalated, closed when heard from', async () => {
    const lastContact = clock.now().toISOString();
    const silent = async () => (await listed(p, s.companyId)).filter((n) => n.eventCode === 'REGISTER_SILENT');
    clock.advance(HOUR - 1000);
    await p.scheduler.runNow();
    assert.deepEqual(await silent(), [], 'not yet: 1 h minus a second');
    clock.advance(2000);
    await p.scheduler.runNow();
    let list = await silent();
    assert.equal(list.length, 1);
    assert.equal(list[0]?.initialTimestamp, lastContact, 'since the last contact');
    assert.equal(list[0]?.currentLevel, 1);
    assert.equal(list[0]?.closedAt, null);
    assert.ok((list[0]?.descriptionLong ?? '').includes(`has not contacted the portal since ${lastContact.slice(0, 10)} ${lastContact.slice(11, 16)} UTC (more than 1 h)`), list[0]?.descriptionLong);
    assert.match(list[0]?.descriptionLong ?? '', /CurrentLevel: 1 \(information\)\. CompanyType: Productive\.$/);
    let mails = await newMails();
    assert.deepEqual(mails.map(toOf).sort(), ['it@example.at', 'sepp@example.at']);
    assert.equal(mails.find((m) => toOf(m) === 'sepp@example.at')?.subject, '[efr] Kasse ATU13585627-KASSE-1 meldet sich nicht');

    // checked again: the same notification, no mail
    clock.advance(HOUR);
    await p.scheduler.runNow();
    assert.equal((await silent()).length, 1);
    assert.equal((await newMails()).length, 0);
    // still silent 2 h after the raise: escalated and mailed again, then to the highest level, not beyond
    clock.advance(HOUR);
    await p.scheduler.runNow();
    list = await silent();
    assert.equal(list.length, 1);
    assert.equal(list[0]?.currentLevel, 2);
    assert.equal(list[0]?.initialTimestamp, lastContact, 'the initial time stays');
    assert.match(list[0]?.descriptionLong ?? '', /CurrentLevel: 2 \(warning\)\. CompanyType: Productive\.$/);
    assert.match((await listed(p, s.companyId, 'de'))[0]?.descriptionLong ?? '', /CurrentLevel: 2 \(Warnung\)\. CompanyType: Productive\.$/);
    mails = await newMails();
    assert.equal(mails.length, 2);
    assert.match(mails[0]?.text ?? '', /CurrentLevel: 2/);
    for (let i = 0; i < 3; i++) {
      clock.advance(2 * HOUR);
      await p.scheduler.runNow();
    }
    assert.equal((await silent())[0]?.currentLevel, 3);
    assert.equal((await newMails()).length, 2, 'one more escalation (to 3) only');

    // any call of the instance counts: here an event that changes nothing else
    const heard = clock.now().toISOString();
    assert.equal((await report(p, s.token, { events: [{ eventCode: 'DISK_OK', at: heard }] })).status, 200);
    list = await silent();
    assert.equal(list[0]?.closedAt, heard, 'closed when heard from');
    await p.scheduler.runNow();
    clock.advance(HOUR / 2);
    await p.scheduler.runNow();
    assert.equal((await silent()).length, 1, 'not raised again while in contact');
    assert.equal((await newMails()).length, 0);
    // silent again: a new notification
    clock.advance(HOUR);
    await p.scheduler.runNow();
    list = await silent();
    assert.equal(list.length, 2);
    assert.equal(list.filter((n) => n.closedAt === null).length, 1);
    assert.equal((await newMails()).length, 2);
  });

  test('a register that is discharged is not silent: its open REGISTER_SILENT is closed', async () => {
    await p.renewAdmin();
    const d = await p.call('POST', `/api/v1/registers/${encodeURIComponent(s.registerNumber)}/deactivate`, {});
    assert.equal(d.status, 200, d.text);
    clock.advance(5 * HOUR);
    await p.scheduler.runNow();
    const list = (await listed(p, s.companyId)).filter((n) => n.eventCode === 'REGISTER_SILENT');
    assert.ok(list.every((n) => n.closedAt !== null), JSON.stringify(list));
    assert.equal((await newMails()).length, 0);
  });
});

describe(`notification mail over SMTP (${STORE_NAME})`, () => {
  test('DISK_NEARLY_FULL is mailed to the technical contacts through a loopback SMTP server', async () => {
    const received: Array<{ from: string; to: string[]; mail: ParsedMail }> = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        simpleParser(stream).then((mail) => {
          const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
          received.push({ from, to: session.envelope.rcptTo.map((r) => r.address), mail });
          callback();
        }, callback);
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.server.address() as AddressInfo).port;
    const p = await startTestPortal({ portal: { smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'Kassenportal <kasse@portal.example>' } });
    cleanup.push(() => p.stop());
    const s = await companyWithContacts(p, 'Disk GmbH');
    const r = await report(p, s.token, { events: [{ eventCode: 'DISK_NEARLY_FULL', at: new Date().toISOString(), detail: 'free 4 % (quota 90 % used)' }] });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.raised, 1);
    await p.context.notifier?.idle();
    assert.deepEqual(p.context.notifier?.counts, { sent: 2, failed: 0 });
    assert.deepEqual(received.map((x) => x.to.join()).sort(), ['it@example.at', 'sepp@example.at']);
    assert.ok(received.every((x) => x.from === 'kasse@portal.example'));
    const de = received.find((x) => x.to[0] === 'sepp@example.at')?.mail;
    assert.equal(de?.subject, '[efr] Speicher der Kasse ATU13585627-KASSE-1 fast voll');
    assert.match(de?.text ?? '', /Guten Tag Sepp Technik,\n\nDer Speicher .* fast voll\..*free 4 % \(quota 90 % used\).*CurrentLevel: 1 \(Information\)\. CompanyType: Productive\./s);
    const en = received.find((x) => x.to[0] === 'it@example.at')?.mail;
    assert.equal(en?.subject, '[efr] Disk of register ATU13585627-KASSE-1 nearly full');
    assert.deepEqual(readdirSafe(join(p.dataDir, 'portal', 'outbox')), [], 'nothing in the outbox when SMTP is configured');
    // the end of the condition closes it
    assert.equal((await report(p, s.token, { events: [{ eventCode: 'DISK_OK', at: new Date().toISOString() }] })).json.closed, 1);
  });

  test('a mail failure loses no notification and fails no request; it is counted and logged', async () => {
    const closed = new SMTPServer({ logger: false });
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const p = await startTestPortal({ portal: { smtpUrl: `smtp://127.0.0.1:${port}` } });
    cleanup.push(() => p.stop());
    const s = await companyWithContacts(p, 'Unreachable GmbH');
    const r = await report(p, s.token, { events: [{ eventCode: 'TSE_FAILURE', at: new Date().toISOString() }] });
    assert.equal(r.status, 200, r.text);
    await p.context.notifier?.idle();
    assert.deepEqual(p.context.notifier?.counts, { sent: 0, failed: 2 });
    const list = await listed(p, s.companyId);
    assert.deepEqual(list.map((n) => [n.eventCode, n.closedAt]), [['TSE_FAILURE', null]]);
  });
});

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
