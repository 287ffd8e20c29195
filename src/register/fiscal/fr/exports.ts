/**
 * The NF525 exports of GET /export: `nf525-export` (export.xml, the signature chains),
 * `nf525-total` (total.xml, the grand totals and closings), `nf525-jet` (audit.csv, the technical
 * events journal) and `nf525-jou` (jou.zip, the journal with both public keys and the proof script
 * verify.mjs). Each export is itself a JET event, journaled before the journal is read, so the
 * export holds it. Formats: docs/countries/fr.md, "Exports".
 */
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { FiscalError } from '../../../shared/errors.js';
import { escapeAttr, escapeText } from '../../codec/xml-text.js';
import type { ServiceContext } from '../../context.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { periodSqRange } from '../../journal/period-range.js';
import { RECORDS_PER_FILE, type JouExportPlan, jouFileName, jouManifest, jouReadme, jouRecordLine, planJouExport } from '../../journal/export/jou-export.js';
import type { Register } from '../../registers.js';
import type { ExportFile, ExportRequest } from '../module.js';
import { journalEvents, notePending } from './events.js';
import type { JetEventKind } from './jet.js';
import { loadKey, readPublicKey } from './keys.js';
import { type SealedItem, sealPayload } from './seal.js';
import { Ledger } from './ledger.js';
import { fiscalYearSpan, yearEndOf } from './periods.js';
import { amount, escapeField, formatTaxes } from './signed-string.js';
import { type FrItem, frFieldNames, frItemsOfRecord, frSplit } from './verify-core.js';
import { frVerifyScript } from './verify-script.js';

export const EXPORT_FORMAT = 'efr-nf525-1';

/** A signed text with the journal record that carries it. */
interface Located extends FrItem {
  d: string;
  type: string;
}

function describePeriod(req: ExportRequest): string {
  const { from, till } = req.period;
  return from || till ? ` ${from ?? '...'}..${till ?? '...'}` : '';
}

/**
 * Journals the export as a JET event and returns the committed head of the journal. When the event
 * cannot be signed (the key is gone or another one), the export is made all the same: the records
 * are already signed; the event waits with the error, and is journaled once the key is back.
 */
async function announce(req: ExportRequest, kind: JetEventKind, what: string): Promise<number> {
  const ev = { kind, detail: `${what}${describePeriod(req)}` };
  try {
    await journalEvents(req.ctx, req.reg, [ev]);
  } catch (e) {
    if (!(e instanceof FiscalError && e.code === '#DEVICE_FAILED')) throw e;
    notePending(req.ctx.dataDir, req.reg.state.rn, { ...ev, detail: `${ev.detail} (${formatLocalDateTime(req.ctx.clock.now())}, non signé alors)` });
  }
  const rid = req.reg.state.rid;
  return (await req.ctx.store.loadRegisters()).find((s) => s.rid === rid)?.sq ?? 0;
}

/**
 * The signed texts of the period, in SQ order: every record from the first to the last one dated in
 * it (periodSqRange), so that a record dated back among them leaves no gap in a chain.
 */
async function signedItems(ctx: ServiceContext, reg: Register, head: number, period: ExportRequest['period']): Promise<Located[]> {
  const out: Located[] = [];
  const range = await periodSqRange(ctx.store, reg.state.rid, head, period);
  if (!range) return out;
  for await (const r of ctx.store.range(reg.state.rid, range.firstSQ, range.lastSQ)) {
    for (const item of frItemsOfRecord(r.sq, r.data)) out.push({ ...item, d: r.d, type: r.type });
  }
  return out;
}

function attrs(o: Record<string, string | undefined>): string {
  return Object.entries(o)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escapeAttr(v as string)}"`)
    .join('');
}

function header(req: ExportRequest, keyId: string): Record<string, string | undefined> {
  return {
    Format: EXPORT_FORMAT,
    RN: req.reg.state.rn,
    KeyId: keyId,
    Exported: formatLocalDateTime(req.ctx.clock.now()),
    Generator: `efr ${req.ctx.version}`,
    Complete: req.period.from ? '0' : '1',
    From: req.period.from,
    Till: req.period.till,
  };
}

/**
 * The seal's signature: with the register's key when it can sign (the chains' own key), else with the
 * service's instance key, which signs every journal record (docs: "Exports").
 */
async function signSeal(req: ExportRequest, payload: string): Promise<{ key: 'register' | 'instance'; keyId: string; signature: string }> {
  const rn = req.reg.state.rn;
  try {
    const key = await loadKey(req.ctx.dataDir, rn, false);
    if (key.keyId === new Ledger(req.reg.state.country, rn).keyId) return { key: 'register', keyId: key.keyId, signature: key.sign(payload) };
  } catch (e) {
    if (!(e instanceof FiscalError && e.code === '#DEVICE_FAILED')) throw e;
  }
  return { key: 'instance', keyId: req.ctx.signer.keyId, signature: req.ctx.signer.sign(payload).toString('base64url') };
}

/** export.xml: every signed record with its signed string, its fields, its signature and the previous one; then the seal. */
export async function exportSignatures(req: ExportRequest): Promise<ExportFile> {
  const head = await announce(req, 'EXPORT', 'nf525-export');
  const key = readPublicKey(req.ctx.dataDir, req.reg.state.rn);
  const items = await signedItems(req.ctx, req.reg, head, req.period);
  if (items.length === 0) throw new FiscalError('#NOT_FOUND', { value: `signed records of ${req.reg.state.rn}` });
  const h = header(req, key.keyId);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n', `<NF525Export${attrs(h)}>\n`];
  out.push(`<PublicKey>${escapeText(key.pem)}</PublicKey>\n`);
  const sealed: SealedItem[] = [];
  for (const it of items) {
    const parts = frSplit(it.payload);
    const kind = parts[1] ?? '';
    const names = frFieldNames(kind) ?? [];
    sealed.push({ sq: it.sq, chain: kind, n: parts[2] ?? '', signature: it.signature });
    out.push(`<Record${attrs({ SQ: String(it.sq), D: it.d, Chain: kind, N: parts[2], Signature: it.signature, Previous: parts[parts.length - 1] })}>\n`);
    out.push(`<Payload>${escapeText(it.payload)}</Payload>\n`);
    names.forEach((name, i) => out.push(`<Field${attrs({ Name: name, Value: parts[3 + i] ?? '' })}/>\n`));
    out.push('</Record>\n');
  }
  const payload = sealPayload({ rn: h.RN ?? '', exported: h.Exported ?? '', complete: h.Complete ?? '', from: h.From ?? '', till: h.Till ?? '' }, sealed);
  const seal = await signSeal(req, payload);
  const instanceKey = seal.key === 'instance' ? req.ctx.signer.publicKeyPem() : undefined;
  out.push(`<Seal${attrs({ Key: seal.key, KeyId: seal.keyId, PublicKey: instanceKey, Payload: payload, Signature: seal.signature })}/>\n`);
  out.push('</NF525Export>\n');
  return { body: Buffer.from(out.join('')), file: 'export.xml', contentType: 'application/xml; charset=utf-8' };
}

/** total.xml: the totals of the open periods, the perpetual grand totals and every closing. */
export async function exportTotals(req: ExportRequest): Promise<ExportFile> {
  const head = await announce(req, 'EXPORT', 'nf525-total');
  const key = readPublicKey(req.ctx.dataDir, req.reg.state.rn);
  const closings = (await signedItems(req.ctx, req.reg, head, req.period)).filter((it) => it.payload.startsWith('FR1;G;'));
  const ledger = new Ledger(req.reg.state.country, req.reg.state.rn);
  const yearEnd = yearEndOf(req.ctx.profiles.settings(req.reg.state.rn).raw);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n', `<NF525Totals${attrs({ ...header(req, key.keyId), YearEnd: String(yearEnd).padStart(2, '0') })}>\n`];
  for (const p of ['J', 'M', 'A'] as const) {
    const t = ledger.totals(p);
    const id = p === 'J' ? undefined : ledger.periodId(p) || undefined;
    out.push(`<Open${attrs({ Period: p, PeriodId: id, Span: p === 'A' && id ? fiscalYearSpan(id, yearEnd) : undefined, Count: String(t.count), Total: amount(t.t), Taxes: formatTaxes(t.taxes) })}/>\n`);
  }
  const { gt, gtAbs } = ledger.perpetual();
  out.push(`<Perpetual${attrs({ GT: amount(gt), GTAbs: amount(gtAbs) })}/>\n`);
  for (const it of closings) {
    const parts = frSplit(it.payload);
    const names = frFieldNames('G') ?? [];
    const fields: Record<string, string> = {};
    names.forEach((name, i) => (fields[name] = parts[3 + i] ?? ''));
    out.push(`<Closing${attrs({ SQ: String(it.sq), N: parts[2], ...fields, Signature: it.signature, Previous: parts[parts.length - 1] })}/>\n`);
  }
  out.push('</NF525Totals>\n');
  return { body: Buffer.from(out.join('')), file: 'total.xml', contentType: 'application/xml; charset=utf-8' };
}

function csvField(v: string): string {
  return /[;"\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** audit.csv: the JET, one event a line, `;`-separated, UTF-8 with a header line. */
export async function exportJet(req: ExportRequest): Promise<ExportFile> {
  const head = await announce(req, 'EXPORT', 'nf525-jet');
  const events = (await signedItems(req.ctx, req.reg, head, req.period)).filter((it) => it.payload.startsWith('FR1;E;'));
  const lines = ['SQ;N;Code;Label;D;Detail;Signature;Previous'];
  for (const it of events) {
    const p = frSplit(it.payload);
    // FR1;E;n;RN;code;label;D;detail;prev
    lines.push([String(it.sq), p[2] ?? '', p[4] ?? '', p[5] ?? '', p[6] ?? '', p[7] ?? '', it.signature, p[8] ?? ''].map(csvField).join(';'));
  }
  return { body: Buffer.from(`${lines.join('\r\n')}\r\n`), file: 'audit.csv', contentType: 'text/csv; charset=utf-8' };
}

/** jou.zip: the journal files of the journal export, both public keys and the proof script of both checks. */
export async function exportJou(req: ExportRequest): Promise<ExportFile> {
  const { ctx, reg } = req;
  const head = await announce(req, 'ARCHIVE', 'nf525-jou');
  const key = readPublicKey(ctx.dataDir, reg.state.rn);
  const plan = await planJouExport(ctx.store, reg.state.rid, reg.state.rn, head, req.period);
  if (!plan) throw new FiscalError('#NOT_FOUND', { value: `journal records of ${reg.state.rn}` });
  const meta = { publicKeyPem: ctx.signer.publicKeyPem(), keyId: ctx.signer.keyId, exportedAt: ctx.clock.now(), generator: `efr ${ctx.version}` };
  // the seal: the manifest's range and the last number of every chain in it (verify-core.ts, verifyFrJouSeal)
  const last = new Map<string, string>();
  for (const it of await signedItems(ctx, reg, head, req.period)) {
    const parts = frSplit(it.payload);
    last.set(parts[1] ?? '', parts[2] ?? '');
  }
  const chains = [...last.keys()].sort().map((k) => `${k}:${last.get(k) ?? ''}`).join('|');
  const sealText = ['FR1', 'SEALJOU', plan.rn, meta.exportedAt.toISOString(), plan.firstSQ === 1 ? '1' : '0', plan.period.from ?? '', plan.period.till ?? '', String(plan.firstSQ), String(plan.lastSQ), chains].map(escapeField).join(';');
  const seal = await signSeal(req, sealText);
  const zip = new ZipFile();
  const options = { mtime: meta.exportedAt };
  zip.addBuffer(Buffer.from(`${jouReadme(plan, meta)}\n${frReadme(key.keyId)}`), 'README.txt', options);
  zip.addBuffer(Buffer.from(`${JSON.stringify({ ...jouManifest(plan, meta), nf525: { keyId: key.keyId, publicKey: 'fr-public.pem', format: EXPORT_FORMAT } }, null, 2)}\n`), 'manifest.json', options);
  zip.addBuffer(Buffer.from(meta.publicKeyPem), 'public.pem', options);
  zip.addBuffer(Buffer.from(key.pem), 'fr-public.pem', options);
  zip.addBuffer(Buffer.from(frVerifyScript(meta.generator)), 'verify.mjs', { ...options, mode: 0o100755 });
  zip.addBuffer(Buffer.from(`${JSON.stringify({ payload: sealText, key: seal.key, keyId: seal.keyId, signature: seal.signature }, null, 2)}\n`), 'fr-seal.json', options);
  const lastFile = Math.floor(plan.lastSQ / RECORDS_PER_FILE);
  for (let n = Math.floor(plan.firstSQ / RECORDS_PER_FILE); n <= lastFile; n++) {
    const file = n;
    zip.addReadStreamLazy(jouFileName(file), options, (cb) => cb(null, Readable.from(jouFile(ctx, plan, file))));
  }
  zip.end();
  return { body: zip.outputStream as unknown as NodeJS.ReadableStream, file: 'jou.zip', contentType: 'application/zip' };
}

/** One .jou file: the records of its SQ range within the plan, read from the journal when the zip asks for it. */
async function* jouFile(ctx: ServiceContext, plan: JouExportPlan, fileNumber: number): AsyncGenerator<Buffer> {
  const from = Math.max(plan.firstSQ, fileNumber * RECORDS_PER_FILE);
  const to = Math.min(plan.lastSQ, (fileNumber + 1) * RECORDS_PER_FILE - 1);
  let first = true;
  yield Buffer.from('[\n');
  for await (const r of ctx.store.range(plan.rid, from, to)) {
    yield Buffer.from(`${first ? '' : ',\n'}${jouRecordLine(r)}`);
    first = false;
  }
  yield Buffer.from('\n]\n');
}

function frReadme(keyId: string): string {
  return `NF525 (France)
==============

fr-public.pem  the register's NF525 public key (key id ${keyId}): it signs the tickets, invoices,
               training tickets, duplicates, grand totals (closings) and technical events (JET),
               each in a chain of its kind (Fis.Payload and Fis.Signature, Fis.FR_JET of the records).
fr-seal.json   the seal: the range of manifest.json and the last number of every NF525 chain, signed
               with the NF525 key (or, when it could not sign, the instance key of public.pem).
verify.mjs     checks the journal as above AND every NF525 chain: the layout of each signed string,
               the numbers of each chain, the previous signature each one names, every signature;
               and the seal, so that records removed at the end are seen.

       node verify.mjs

prints one line for the journal, one for the NF525 chains and one for the seal, and exits with 0 only\nwhen all three are OK.
`;
}
