/**
 * registerTransaction: the one owner of the order of the seven steps
 * (decode, normalize, validate, classify, fiscalize, journal, respond).
 * Routes, the file interface and UDP only adapt their input and output to it.
 */
import { type Lang, FiscalError, message } from '../shared/errors.js';
import { contentHashes } from '../shared/canonical.js';
import { type Doc, type Format, type Obj, bodyFormat, decodeBody, isObj, responseFormat, str } from './codec/index.js';
import type { ServiceContext } from './context.js';
import { type BusinessCase, classify } from './esr/business-case.js';
import { formatLocalDateTime, yearOf } from './esr/datetime.js';
import { identityOf, normalizeTra } from './esr/normalize.js';
import { checkRules, checkShape, invoiceCustomerWarnings } from './esr/validate.js';
import { moduleFor } from './fiscal/registry.js';
import type { JournalRecord, RecordType, RegisterState, TransactionType } from './journal/types.js';
import { StaleAttempt } from './journal/group-commit.js';
import { type Prepared, type Submitted, STALE_ATTEMPTS, appendRecord, remember, sealRecord, staleBackoff } from './record-writer.js';
import { type CachedResponse, type Register, initialState } from './registers.js';
import { fisQrImage } from './render/qr/fis-qr.js';
import { withDocumentHandle } from './recorder/tra-dh.js';
import type { Lease } from './key-locks.js';
import { type References, loadReferences, stale } from './originals.js';
import { type ZAccumulator, addToTotals, addToZ, closeZ, emptyZ, totalsTags } from './closing/z-report.js';
import { rnOfQuery, rnOfTransaction } from './register-number.js';
import { checkTransactionScope } from './security/token-scope.js';
import type { TokenScope } from './security/tokens.js';
import { type Reply, failureOf, failureReply, reply } from './respond.js';
import { type Sealed, answerOf, answerRoot, sealedOf } from './record-answer.js';
import { assertDiskRoom } from './maintenance/disk-quota.js';
import { receiptPrintout, unprintedDuplicate } from './peripherals/receipt-printout.js';
import type { OnlineOutcome } from './fiscal/delivery/deliverer.js';
import { withAuthorityAnswer } from './fiscal/delivery/answers.js';
import { checkEinvoice } from './einvoice/index.js';
import { issueEinvoice } from './einvoice/issue.js';

export type Mode = 'register' | 'restart';

export interface RegisterRequest {
  text: string;
  contentType?: string | undefined;
  accept?: string | undefined;
  /** query parameters, names lower-cased */
  query: Readonly<Record<string, string>>;
  mode: Mode;
  /** cloud mode: the access token's TaxId/TL/TT; a transaction outside it is refused (#OUT_OF_SCOPE) */
  scope?: TokenScope | undefined;
  /** told the register once the request has named it (its profile's settings, such as HttpServer_respond102, apply to the request) */
  onRegister?: ((rn: string) => void) | undefined;
}

/** The roots of a request (POST /register, a `.req` file, a UDP datagram). */
export const REQUEST_ROOTS: readonly string[] = ['Tra', 'TraS', 'TraU', 'TraV', 'Audit'];

/** The next automatic TN of TL/TT in a year: one more than the last, 1 in a new year. */
export function nextTn(state: RegisterState, tl: string, tt: string, year: number): string {
  const c = state.tn[`${tl}/${tt}`];
  return String(c && c.y >= year ? c.n + 1 : 1);
}

function noteTn(state: RegisterState, tl: string, tt: string, tn: string, year: number): void {
  if (!/^\d{1,15}$/.test(tn)) return;
  const key = `${tl}/${tt}`;
  const n = Number(tn);
  const c = state.tn[key];
  if (!c || year > c.y) state.tn[key] = { y: year, n };
  else if (year === c.y && n > c.n) c.n = n;
}

/** The unprinted mark of a receipt to print, written in the step its record is sealed, so GET /last holds it back until it is printed. */
export type SealHook = (sq: number, ch: Buffer) => void;

/** A transaction registered before with the same identity and content, or a refusal of a reused TN. */
async function findDuplicate(ctx: ServiceContext, reg: Register, mode: Mode, esr: Obj, ch: Buffer, rh: Buffer, year: number): Promise<JournalRecord | undefined> {
  const { tl, tt } = identityOf(esr);
  const tn = str(esr, 'TN');
  const same = (r: JournalRecord): boolean => (mode === 'restart' ? r.rh?.equals(rh) : r.ch?.equals(ch)) === true;
  if (tn) {
    const key = `${tl}/${tt}/${tn}`;
    const pendingSq = reg.pendingTn.get(key);
    if (pendingSq !== undefined) {
      // the same TL/TT/TN is being committed: wait for it, then look again
      await reg.pending.get(pendingSq);
      return findDuplicate(ctx, reg, mode, esr, ch, rh, year);
    }
    const candidates = await ctx.store.byTn(reg.state.rid, tl, tt, tn);
    // TN restarts each year: only a transaction of the same year can be the same one
    for (const r of candidates) if (same(r) && yearOf(r.d) === year) return r;
    // a TN is used once a year; in some countries (Austria: it is the receipt number of the code) once ever
    const once = moduleFor(reg.state.cfg).uniqueTn === true;
    const clash = candidates.find((r) => r.type === 'Tra' && (once || yearOf(r.d) === year));
    if (clash) throw new FiscalError('#TN_USED', { id: key, sq: clash.sq });
    return undefined;
  }
  if (mode === 'restart') {
    const last = reg.state.lastTT[`${tl}/${tt}`];
    if (last && last.rh === rh.toString('base64')) {
      const r = await ctx.registers.record(reg, last.sq);
      if (r) return r;
    }
  }
  // a receipt journaled from this same request whose printout failed (RC NO): the POS sends it again to have it printed
  // only while it is the last record of its TL/TT and young: else the same content is a new sale
  const unprinted = unprintedDuplicate(ctx, reg, esr, ch);
  if (unprinted !== undefined) {
    const r = await ctx.registers.record(reg, unprinted);
    if (r?.ch?.equals(ch)) return r;
  }
  return undefined;
}

type Outcome = { sealed: Sealed; duplicate?: boolean };

interface Checked {
  esr: Obj;
  bc: BusinessCase;
  warnings: string[];
  /** the TN was numbered by the service */
  tnGenerated: boolean;
}

/** Normalize, classify and validate (steps 2 to 4) against a register's state; no side effects on it. */
function checkTransaction(ctx: ServiceContext, state: RegisterState, type: TransactionType, esrIn: Obj, now: Date): Checked {
  const module = moduleFor(state.cfg);
  // Croatia, Slovenia: the automatic TN is the invoice number the authority sees, gapless; a record it does not
  // see (training, non-fiscal, a Z) is numbered outside that series
  const before = module.authority && type === 'Tra' ? classify(esrIn) : undefined;
  const outside = before !== undefined && (!before.fiscal || before.flags.includes('test') || module.isTraining?.(esrIn) === true);
  const next = (tl: string, tt: string, y: number): string => (outside ? `${before.kind.toUpperCase()}-${state.sq + 1}` : nextTn(state, tl, tt, y));
  const settings = ctx.profiles.settings(state.rn);
  const norm = normalizeTra(esrIn, { now, letters: module.letters, assignTn: type === 'Tra', nextTn: next, testDd: settings.eDocTestNormalize });
  const bc: BusinessCase = classify(norm.esr);
  if (!bc.flags.includes('test') && module.isTraining?.(norm.esr)) bc.flags.push('test');
  checkRules(norm.esr, { now, normalizeDays: settings.normalizeDays, letters: module.letters, nonFiscal: !bc.fiscal || type !== 'Tra' });
  module.validate(norm.esr, bc);
  // e-invoicing: an invoice with DD must make a valid EN 16931 e-invoice, else it is refused here (einvoice/)
  const einvoiceWarnings = type === 'Tra' ? checkEinvoice(norm.esr, bc, state.cfg) : [];
  return { esr: norm.esr, bc, warnings: [...norm.warnings, ...invoiceCustomerWarnings(norm.esr, bc), ...einvoiceWarnings], tnGenerated: norm.generated.TN };
}

/** The first request of a register that does not exist yet is checked before the register is created. */
export function checkBeforeCreating(ctx: ServiceContext, rn: string, doc: Doc): void {
  if (!['Tra', 'TraS', 'TraU', 'TraV'].includes(doc.root)) return;
  const copy = structuredClone(doc.body);
  const esrIn = checkShape(doc.root, copy);
  checkTransaction(ctx, { ...initialState(rn), rid: -1 }, doc.root as TransactionType, esrIn, ctx.clock.now());
}

/** The lock key of an original, company-wide like the originals themselves (originals.ts companyRids). */
function refLockKey(reg: Register, ref: string): string {
  const rn = reg.state.rn;
  return `ref|${rn.slice(0, rn.indexOf('$') + 1) || rn}|${ref}`;
}

/**
 * A transaction with its register's TN lock. When its commit is refused because another process sharing the
 * journal wrote the register meanwhile, the register's state has been read back and nothing of the attempt
 * is left in memory: it is run again from the start (duplicate check, numbering, sealing) on a fresh copy of
 * the request (`again`: the first attempt's normalization wrote into its own), up to STALE_ATTEMPTS times.
 */
async function registerTra(ctx: ServiceContext, reg: Register, doc: Doc, mode: Mode, again: () => Promise<Doc>, onSeal?: SealHook): Promise<Outcome> {
  const type = doc.root as TransactionType;
  let esrIn = checkShape(type, doc.body);
  const tnIn = str(esrIn, 'TN');
  let tnKey: string[] = [];
  if (type === 'Tra' && tnIn) {
    const { tl, tt } = identityOf(esrIn);
    tnKey = [`tn|${reg.state.rid}|${tl}/${tt}/${tnIn}`];
  }
  // held from the lookups until the commit: a transaction with the same TN or original waits for it
  const lease = await ctx.registers.locks.acquire(tnKey);
  try {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await registerHeld(ctx, reg, type, esrIn, mode, lease, 0, onSeal);
      } catch (e) {
        if (!(e instanceof StaleAttempt)) throw e;
        if (attempt >= STALE_ATTEMPTS) throw new FiscalError('#JOURNAL');
        await staleBackoff(attempt);
        const fresh = await again();
        if (fresh.root !== type) throw new FiscalError('#JOURNAL');
        esrIn = checkShape(type, fresh.body);
      }
    }
  } finally {
    lease.release();
  }
}

async function registerHeld(ctx: ServiceContext, reg: Register, type: TransactionType, esrIn: Obj, mode: Mode, lease: Lease, attempt = 0, onSeal?: SealHook): Promise<Outcome> {
  // the state the lookups below see; read back meanwhile (another process wrote the register), they are stale
  const seen = reg.state;
  const { ch, rh } = contentHashes(esrIn);
  const dIn = str(esrIn, 'D');
  const year = dIn ? yearOf(dIn) : ctx.clock.now().getFullYear();
  let refs: References | undefined;
  if (type === 'Tra') {
    const original = await findDuplicate(ctx, reg, mode, esrIn, ch, rh, year);
    if (original) return { sealed: sealedOf(original), duplicate: true };
    refs = await loadReferences(ctx, reg, esrIn);
    // the original's lock, then its lookups again: another void, return or reprint of it may just have committed
    while (refs.ref !== undefined && !lease.holds(refLockKey(reg, refs.ref))) {
      await lease.add(refLockKey(reg, refs.ref));
      refs = await loadReferences(ctx, reg, esrIn);
    }
  }
  // DiskQuota: refused before anything is sealed (a retry of an answered transaction still gets its answer above)
  assertDiskRoom(ctx);
  const tnIn = str(esrIn, 'TN');
  const settings = ctx.profiles.settings(reg.state.rn);
  // the country module opens what it needs (a signature device, keys) before the synchronous section
  await moduleFor(reg.state.cfg).prepare?.({ dataDir: ctx.dataDir, state: reg.state, attributes: settings.raw, esr: esrIn });
  const day = (dIn ?? formatLocalDateTime(ctx.clock.now())).slice(0, 10);
  const closingAsked = type === 'Tra' && str(esrIn, 'NFS')?.toUpperCase() === 'Z' && str(esrIn, 'Test') !== '1';
  // an X report: the day's figures so far, as a Z would have them, without closing the day
  const xAsked = type === 'Tra' && str(esrIn, 'NFS')?.toUpperCase() === 'X' && str(esrIn, 'Test') !== '1';
  // Fiscal_ZLaunch: the first transaction of a new date is preceded by a Z of the day before
  const zLaunch = type === 'Tra' && !closingAsked && settings.raw.has('fiscal_zlaunch') && reg.state.zCount > 0 && reg.state.zLastD.slice(0, 10) !== day;
  let day0: Closing | undefined;
  if (closingAsked || xAsked || zLaunch) {
    day0 = await openClosing(ctx, reg);
    // another transaction of the new day may have made the Z while this one waited for the lock
    if (zLaunch && !(reg.state.zCount > 0 && reg.state.zLastD.slice(0, 10) !== day)) {
      day0.release();
      return registerHeld(ctx, reg, type, esrIn, mode, lease, attempt, onSeal);
    }
  } else if (reg.closing) {
    // a Z is being computed from the journal: register after it
    await reg.closing;
    return registerHeld(ctx, reg, type, esrIn, mode, lease, attempt, onSeal);
  }
  // From here to the submit nothing awaits: the register's head cannot move under us.
  // What the awaits above looked at may have changed meanwhile (another transaction with this TN, or
  // naming the same original, sealed but not committed): look again after it is committed.
  const conflict = type === 'Tra' ? pendingConflict(ctx, reg, esrIn, tnIn, refs) : undefined;
  if (conflict) {
    day0?.release();
    if (attempt >= 5) throw new FiscalError('#INTERNAL');
    await conflict;
    return registerHeld(ctx, reg, type, esrIn, mode, lease, attempt + 1, onSeal);
  }
  if (reg.state !== seen) {
    // the register's state was read back while this one looked things up: what it found may be stale
    day0?.release();
    throw new StaleAttempt(reg.state.rid);
  }
  try {
    const now = ctx.clock.now();
    const module = moduleFor(reg.state.cfg);
    // receipts the law wants before this one (Austria: start, monthly, yearly receipts)
    const extras = type === 'Tra' && module.before ? module.before({ dataDir: ctx.dataDir, state: reg.state, attributes: settings.raw, esr: esrIn, d: dIn ?? formatLocalDateTime(now) }) : [];
    if ((zLaunch && day0) || extras.length) {
      // the transaction itself must pass before anything is registered for it
      const trial = checkTransaction(ctx, structuredClone(reg.state), type, structuredClone(esrIn), now);
      refs?.check(trial.esr, trial.bc);
    }
    const automatic: Submitted[] = [];
    // the Z of the day before closes it first, then come the receipts of the new period
    if (zLaunch && day0) {
      const { tl, tt } = identityOf(esrIn);
      // the Z takes the next automatic TN, unless the POS numbers its transactions itself
      const zEsr: Obj = { TT: tt, NFS: 'Z', Rsn: 'Fiscal_ZLaunch', ...(tnIn ? { TN: `Z${reg.state.zi + 1}` } : {}) };
      if (tl) zEsr.TL = tl;
      automatic.push(sealTra(ctx, reg, 'Tra', checkTransaction(ctx, reg.state, 'Tra', zEsr, now), now, contentHashes(zEsr), undefined, day0.acc));
    }
    for (const extra of extras) {
      const { tl, tt } = identityOf(esrIn);
      const esr: Obj = { ...extra, TT: tt, ...(tl ? { TL: tl } : {}), ...(dIn ? { D: dIn } : {}), ...(tnIn ? { TN: `AUTO-${reg.state.sq + 1}` } : {}) };
      automatic.push(sealTra(ctx, reg, 'Tra', checkTransaction(ctx, reg.state, 'Tra', esr, now), now, contentHashes(esr)));
    }
    let submitted: Submitted;
    try {
      const checked = checkTransaction(ctx, reg.state, type, esrIn, now);
      refs?.check(checked.esr, checked.bc);
      // an X right after the automatic Z of a new day (Fiscal_ZLaunch) reports the new day: nothing yet
      const dayAcc = xAsked && zLaunch ? emptyZ() : day0?.acc;
      submitted = sealTra(ctx, reg, type, checked, now, { ch, rh }, refs, closingAsked || xAsked ? dayAcc : undefined, onSeal);
    } finally {
      // the automatic receipts are on their way whatever happens to the transaction
      for (const a of automatic) await a.done.catch(() => undefined);
    }
    await submitted.done;
    return { sealed: submitted.sealed };
  } finally {
    day0?.release();
  }
}

/**
 * Fis_QR: the answer carries the QR code of Fis.Code as a base64 image in Fis.QR (not journaled: it is
 * made from Fis.Code). The transaction is registered already: an image that cannot be made is a warning.
 */
function withFisQr(answer: CachedResponse, fisQr: string | undefined): CachedResponse {
  const fis = answer.body.Fis;
  const code = isObj(fis) ? str(fis, 'Code') : undefined;
  if (fisQr === undefined || !isObj(fis) || !code) return answer;
  try {
    return { ...answer, body: { ...answer.body, Fis: { ...fis, QR: fisQrImage(code, fisQr) } } };
  } catch (e) {
    return withWarning(answer, `Fis_QR: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** A transaction still being committed that this one must see first: the same TL/TT/TN, or the same original. */
function pendingConflict(ctx: ServiceContext, reg: Register, esrIn: Obj, tnIn: string | undefined, refs: References | undefined): Promise<void> | undefined {
  if (tnIn) {
    const { tl, tt } = identityOf(esrIn);
    // its commit settles among the pending ones; the retry then finds it as a duplicate or a used TN
    if (reg.pendingTn.has(`${tl}/${tt}/${tnIn}`)) return Promise.all([...reg.pending.values()]).then(() => undefined, () => undefined);
  }
  return refs ? stale(ctx, reg, refs) : undefined;
}

interface Closing {
  /** the day's totals: every transaction since the last Z, folded from the journal */
  acc: ZAccumulator;
  release(): void;
}

/**
 * Takes the register for a Z: transactions wait until it is sealed; everything sealed before is
 * committed first, then the transactions since the last Z are read back from the journal and folded.
 * The day's totals are thus computed from the journal itself, and cost nothing per transaction.
 */
async function openClosing(ctx: ServiceContext, reg: Register): Promise<Closing> {
  while (reg.closing) await reg.closing;
  let release!: () => void;
  reg.closing = new Promise<void>((resolve) => {
    release = () => {
      reg.closing = undefined;
      resolve();
    };
  });
  try {
    await Promise.all([...reg.pending.values()]);
    const acc = emptyZ();
    for await (const r of ctx.store.range(reg.state.rid, reg.state.zSq + 1, reg.state.sq)) {
      if (r.type === 'Tra') addToZ(acc, JSON.parse(r.data) as Obj);
    }
    return { acc, release };
  } catch (e) {
    release();
    throw e;
  }
}

/** Seals a checked transaction (steps 5 and 6): index columns, counters, fiscal data, Z closing, grand totals. */
function sealTra(ctx: ServiceContext, reg: Register, type: TransactionType, checked: Checked, now: Date, hashes: { ch: Buffer; rh: Buffer }, refs?: References, day?: ZAccumulator, onSeal?: SealHook): Submitted {
  const { esr, bc, warnings, tnGenerated } = checked;
  const { ch, rh } = hashes;
  const state = reg.state;
  const module = moduleFor(state.cfg);
  const tl = str(esr, 'TL') ?? '';
  const tt = str(esr, 'TT') ?? '';
  const tn = str(esr, 'TN') ?? '';
  const d = str(esr, 'D') ?? formatLocalDateTime(now);
  const data: Obj = { TS: formatLocalDateTime(now), BC: bc.kind };
  if (bc.flags.length) data.BCF = bc.flags.join(' ');
  data.ESR = esr;
  if (warnings.length) data.Warning = warnings;
  // TraS starts a transaction: the TN belongs to the closing Tra, so TraS is not found by TN
  const index: Prepared['index'] = type === 'Tra' ? { d, tl, tt, tn, bc: bc.kind, ch, rh } : { d, tl, tt, bc: bc.kind };
  if (refs?.ref) index.ref = refs.ref;
  if (refs?.resume) index.resume = refs.resume;
  const t = str(esr, 'T');
  if (t !== undefined) index.t = t;
  const nfs = str(esr, 'NFS');
  if (nfs !== undefined) index.nfs = nfs;
  const closing = type === 'Tra' && bc.kind === 'closing' && !bc.flags.includes('test') && day !== undefined;
  const prepared: Prepared = {
    type,
    data,
    index,
    ...(type === 'Tra' ? { tnKey: `${tl}/${tt}/${tn}` } : {}),
    ...(refs ? { refs } : {}),
    ...(onSeal ? { beforeSubmit: (sq: number) => onSeal(sq, ch) } : {}),
    apply: (s, sq, sealedData) => {
      if (type !== 'Tra') return;
      noteTn(s, tl, tt, tn, yearOf(d));
      s.lastTT[`${tl}/${tt}`] = { sq, rh: rh.toString('base64') };
      if (closing) {
        s.zSq = sq;
        s.zCount = 0;
        s.zLastD = '';
      } else {
        s.zCount += 1;
        s.zLastD = d;
      }
      addToTotals(s.gt, sealedData);
    },
  };
  return sealRecord(ctx, reg, prepared, (sq, prevHash, draft) => {
    const original = refs?.original ? { original: JSON.parse(refs.original.data) as Obj } : {};
    const reprints = refs?.reprints !== undefined ? { reprints: refs.reprints } : {};
    const fis = module.fiscalize({ rn: state.rn, sq, prevHash, now, type, esr, bc, state, signer: ctx.signer, dataDir: ctx.dataDir, attributes: ctx.profiles.settings(state.rn).raw, tnGenerated, ...original, ...reprints });
    if (type === 'Tra' && bc.kind === 'xreport' && !bc.flags.includes('test') && day !== undefined) {
      // the X report: the figures of the Z that would close the day now; nothing is reset
      fis.X = closeZ(day, { zi: state.zi + 1, now: formatLocalDateTime(now), lastSq: sq - 1, lastD: day.lastD || undefined, fisUnitId: ctx.signer.keyId }).fisZ;
    }
    if (closing) {
      state.zi += 1;
      const { z, fisZ } = closeZ(day, { zi: state.zi, now: formatLocalDateTime(now), lastSq: sq - 1, lastD: day.lastD || undefined, fisUnitId: ctx.signer.keyId });
      fis.Z = fisZ;
      draft.Z = z;
    }
    if (type === 'Tra' && ctx.profiles.settings(state.rn).raw.has('fis_tot')) {
      const gt = structuredClone(state.gt);
      addToTotals(gt, { ...draft, Fis: fis });
      fis.Tag = [...(Array.isArray(fis.Tag) ? fis.Tag : []), ...totalsTags(gt)];
    }
    return fis;
  });
}

async function registerAudit(ctx: ServiceContext, reg: Register, doc: Doc): Promise<Outcome> {
  assertDiskRoom(ctx);
  const now = ctx.clock.now();
  const d = formatLocalDateTime(now);
  return { sealed: await appendRecord(ctx, reg, { type: 'Audit', data: { TS: d, Audit: doc.body }, index: { d } }, undefined, true) };
}

/**
 * A receipt of a country with a tax authority is sent to it once committed (ctx.authority, within
 * Fiscal_Timeout); its id is merged into Fis. A duplicate gets the answer journaled for the original, if any.
 */
async function reportToAuthority(ctx: ServiceContext, reg: Register, outcome: Outcome): Promise<{ sealed: Sealed; note?: OnlineOutcome }> {
  const { sealed } = outcome;
  if (str(sealed.data, '_') !== 'Tra') return { sealed };
  if (outcome.duplicate) {
    const data = await withAuthorityAnswer(ctx, reg, Number(str(sealed.data, 'SQ')), sealed.data);
    return { sealed: data === sealed.data ? sealed : { ...sealed, data } };
  }
  const note = await ctx.authority?.online(reg, sealed);
  if (!note) return { sealed };
  return { sealed: note.fis ? { ...sealed, data: { ...sealed.data, Fis: note.fis } } : sealed, note };
}

/** The authority's warning (not answered in time, refused) in the Result of an OK answer, with its message for the operator. */
function withAuthorityNote(answer: CachedResponse, note: OnlineOutcome | undefined, lang: Lang): CachedResponse {
  if (!note?.errorCode) return answer;
  const result = isObj(answer.body.Result) ? answer.body.Result : { RC: 'OK' };
  return { ...answer, body: { ...answer.body, Result: { ...result, ErrorCode: note.errorCode, UserMessage: message(note.errorCode, lang, note.params) } } };
}

/** A warning about what followed the commit (the e-invoice not delivered, the QR image not made) in the Result of an OK answer. */
function withWarning(answer: CachedResponse, warning: string | undefined): CachedResponse {
  if (warning === undefined) return answer;
  const result = isObj(answer.body.Result) ? answer.body.Result : { RC: 'OK' };
  const warnings = [...(Array.isArray(result.Warning) ? result.Warning : []), warning];
  return { ...answer, body: { ...answer.body, Result: { ...result, Warning: warnings } } };
}

/** A request whose body is made by the service (a void built from its original), with its register. */
export interface BuiltRequest {
  doc: Doc;
  rn: string;
}

/**
 * POST /register and POST /restart (and, through `build`, /register/void): one request in, one reply
 * out; never throws.
 */
export async function registerTransaction(ctx: ServiceContext, req: RegisterRequest, build?: (doc: Doc | undefined) => Promise<BuiltRequest>): Promise<Reply> {
  let format: Format = responseFormat(req.accept, req.text.trim() ? bodyFormat(req.contentType, req.text) : undefined);
  let root = 'TraC';
  let lang: Lang = ctx.registers.lang(ctx.registers.get('def'));
  let respond200 = ctx.profiles.settings('def').respond200;
  // the printout's limit counts from here
  const arrived = Date.now();
  try {
    let doc: Doc;
    let rn: string;
    // the request again, untouched (a transaction run again after a stale attempt starts from it)
    const again = async (): Promise<Doc> => (build ? (await build(req.text.trim() ? decodeBody(req.text, req.contentType, 'Tra') : undefined)).doc : decodeBody(req.text, req.contentType, 'Tra, TraS or Audit'));
    if (build) {
      const given = req.text.trim() ? decodeBody(req.text, req.contentType, 'Tra') : undefined;
      ({ doc, rn } = await build(given));
    } else {
      doc = decodeBody(req.text, req.contentType, 'Tra, TraS or Audit');
      if (!REQUEST_ROOTS.includes(doc.root)) throw new FiscalError('#UNKNOWN_ROOT', { field: doc.root, expected: REQUEST_ROOTS.join(', ') });
      const esrIn = doc.body.ESR;
      rn = doc.root === 'Audit' ? rnOfQuery(ctx, req.query) : rnOfTransaction(ctx, typeof esrIn === 'object' && !Array.isArray(esrIn) ? esrIn : undefined, req.query);
    }
    req.onRegister?.(rn);
    format = responseFormat(req.accept, doc.format);
    root = answerRoot(doc.root);
    if (req.scope) checkTransactionScope(ctx, req.scope, rn, doc);
    if (ctx.restoring !== undefined) throw new FiscalError('#BACKUP_BUSY', { value: ctx.restoring });
    if (!ctx.registers.get(rn)) {
      checkBeforeCreating(ctx, rn, doc);
      assertDiskRoom(ctx);
    }
    const reg = await ctx.registers.getOrCreate(rn);
    lang = ctx.registers.lang(reg);
    const settings = ctx.profiles.settings(rn);
    respond200 = settings.respond200;
    if (settings.testRc) {
      const f = failureOf(new FiscalError('#TEST_RC'), lang);
      return failureReply(format, root, settings.testRc === 'BAD' ? { ...f, rc: 'BAD', status: 400 } : f, respond200);
    }
    // with a printer: GET /last answers 423 until the receipt is printed; a printer error is RC NO
    const printout = receiptPrintout(ctx, rn, doc, arrived);
    try {
      let outcome: Outcome;
      try {
        outcome = doc.root === 'Audit' ? await registerAudit(ctx, reg, doc) : await registerTra(ctx, reg, doc, req.mode, again, printout?.onSeal);
      } catch (e) {
        // nothing registered: the marks written while sealing go
        printout?.abandon();
        throw e;
      }
      // Croatia, Slovenia: reported to the tax authority before it is printed and answered (its JIR/EOR is printed)
      const reported = await reportToAuthority(ctx, reg, outcome);
      // e-invoicing: made, kept and delivered after the commit (and the authority); its delivery is in Fis.EInvoice
      const issued = await issueEinvoice(ctx, reg, reported.sealed, outcome.duplicate === true);
      const sealed = issued.sealed;
      try {
        await printout?.print(reg, sealed, outcome.duplicate === true);
      } catch (e) {
        // journaled, not printed: the error names the receipt (SQ, FN) that is registered; sent again, it is printed
        return failureReply(format, root, failureOf(e, lang), respond200, [], answerOf(sealed).body);
      }
      const fisQr = settings.raw.get('fis_qr');
      if (outcome.duplicate) {
        const sq = str(sealed.data, 'SQ') ?? '';
        const duplicate = answerOf(sealed, { errorCode: '#DUPLICATE', warnings: [`duplicate of SQ ${sq}; not registered again`] });
        return reply(format, withFisQr(await withDocumentHandle(ctx, reg.state.rn, settings.traDh, duplicate, sealed), fisQr));
      }
      const answer = withWarning(withAuthorityNote(remember(reg, doc.root as RecordType, sealed), reported.note, lang), issued.warning);
      return reply(format, withFisQr(await withDocumentHandle(ctx, reg.state.rn, settings.traDh, answer, sealed), fisQr));
    } finally {
      printout?.end();
    }
  } catch (e) {
    return failureReply(format, root, failureOf(e, lang), respond200);
  }
}
