/**
 * Record writing: seals any record (a transaction, an audit, a configuration or a country module's own
 * record) onto a register's chain, signs it and submits it to the journal. It sits below the transaction
 * pipeline and the country modules, which both write records through it, so neither needs the other.
 */
import { FiscalError } from '../shared/errors.js';
import { type Obj, str } from './codec/index.js';
import type { ServiceContext } from './context.js';
import { chainHash, signingPayload } from './journal/chain.js';
import type { JournalRecord, RecordType, RegisterState } from './journal/types.js';
import { StaleAttempt } from './journal/group-commit.js';
import type { Register } from './registers.js';
import type { References } from './originals.js';
import { fiscalStateEvents } from './recorder/fiscal-state-events.js';
import { type Sealed, answerOf } from './record-answer.js';
import { isDiskFull } from './maintenance/disk-quota.js';

export interface Prepared {
  type: RecordType;
  data: Obj;
  index: Omit<JournalRecord, 'rid' | 'sq' | 'data' | 'hash' | 'sig' | 'type'>;
  /** the TL/TT/TN key of a transaction with a TN, for duplicate detection while pending */
  tnKey?: string;
  /** the original it names and the parked receipt it resumes, for rule 10 and parking while pending */
  refs?: References;
  /** update of the register's counters with the sealed record's data, applied in the synchronous section */
  apply?: (state: RegisterState, sq: number, data: Obj) => void;
  /** run when the SQ is taken, before anything else of the record is made or submitted; throwing registers nothing (the receipt's unprinted mark for the printer) */
  beforeSubmit?: (sq: number) => void;
}

/** The signature of a record until the store signs it at its commit. */
const NOT_SIGNED_YET = Buffer.alloc(0);

/**
 * A sealed record on its way to the disk; `done` settles after the commit (rejects with #JOURNAL or
 * #DISK_FULL, or with StaleAttempt when another process wrote the register meanwhile: nothing was written
 * and the register's state has been read back, so the transaction can be run again).
 */
export interface Submitted {
  /** its signature is set when `done` resolves (the store may sign it where it writes) */
  sealed: Sealed;
  done: Promise<void>;
}

/** Every index field is copied by journalRecord: a field added to JournalRecord fails the build here until it is. */
type CopiedIndexFields = 'd' | 'tl' | 'tt' | 'tn' | 'fn' | 't' | 'nfs' | 'bc' | 'ch' | 'rh' | 'ref' | 'resume' | 'payload';
const allIndexFieldsCopied: Exclude<keyof Prepared['index'], CopiedIndexFields> extends never ? true : never = true;
void allIndexFieldsCopied;

/**
 * The journal record of a sealed text with the index fields given. Written out field by field: an object
 * spread of index objects of many shapes is slow in V8, and this runs for every record.
 */
function journalRecord(rid: number, sq: number, prepared: Prepared, data: string, hash: Buffer, sig: Buffer): JournalRecord {
  const ix = prepared.index;
  const r: JournalRecord = { rid, sq, type: prepared.type, d: ix.d, data, hash, sig };
  if (ix.tl !== undefined) r.tl = ix.tl;
  if (ix.tt !== undefined) r.tt = ix.tt;
  if (ix.tn !== undefined) r.tn = ix.tn;
  if (ix.fn !== undefined) r.fn = ix.fn;
  if (ix.t !== undefined) r.t = ix.t;
  if (ix.nfs !== undefined) r.nfs = ix.nfs;
  if (ix.bc !== undefined) r.bc = ix.bc;
  if (ix.ch !== undefined) r.ch = ix.ch;
  if (ix.rh !== undefined) r.rh = ix.rh;
  if (ix.ref !== undefined) r.ref = ix.ref;
  if (ix.resume !== undefined) r.resume = ix.resume;
  if (ix.payload !== undefined) r.payload = ix.payload;
  return r;
}

/**
 * Seals one record onto a register's chain and submits it: SQ, hash and signature are assigned
 * synchronously (no await between reading the head and submitting).
 */
export function sealRecord(ctx: ServiceContext, reg: Register, prepared: Prepared, fiscalize?: (sq: number, prevHash: string, data: Obj) => Obj): Submitted {
  // a restore may replace the instance key and checks that nothing moved: no record of any register meanwhile
  if (ctx.restoring !== undefined) throw new FiscalError('#BACKUP_BUSY', { value: ctx.restoring });
  const state = reg.state;
  const sq = state.sq + 1;
  const prevHash = state.hash;
  const counters = { fn: state.fn, tid: state.tid, zi: state.zi, country: { ...state.country } };
  let data: Obj;
  let text: string;
  try {
    data = { _: prepared.type, SQ: String(sq), RN: state.rn, ...prepared.data };
    prepared.beforeSubmit?.(sq);
    const fis = fiscalize ? fiscalize(sq, prevHash, data) : undefined;
    if (fis) data.Fis = fis;
    text = JSON.stringify(data);
  } catch (e) {
    Object.assign(state, counters);
    throw e;
  }
  const hash = chainHash(prevHash, text);
  const hashHex = hash.toString('hex');
  const payload = signingPayload(data, hashHex);
  // a key held here is used by the store's writer thread (the record's signature is needed only by the answer, after the commit)
  const signingKey = ctx.committer.signsRecords ? ctx.signer.privateKey : undefined;
  const record = journalRecord(state.rid, sq, prepared, text, hash, signingKey ? NOT_SIGNED_YET : ctx.signer.sign(payload));
  if (signingKey) record.payload = payload;
  if (data.Fis && typeof data.Fis === 'object' && !Array.isArray(data.Fis)) {
    const fn = str(data.Fis, 'FN');
    if (fn) record.fn = fn;
  }
  state.sq = sq;
  state.hash = hashHex;
  state.last[prepared.type] = sq;
  // GET /last answers the newest record: the cache is refilled after the commit (or from the journal)
  reg.last.delete(prepared.type);
  reg.last.delete('any');
  prepared.apply?.(state, sq, data);
  // the TSE initialized, failing or answering again: reported to the portal once the record is committed
  const fiscalEvents = ctx.events ? fiscalStateEvents(counters.country, state.country) : [];
  const committed = ctx.committer.submit(record, signingKey);
  const entry = committed.catch(() => undefined);
  reg.pending.set(sq, entry);
  if (prepared.tnKey) reg.pendingTn.set(prepared.tnKey, sq);
  const ref = prepared.refs?.ref;
  const resume = prepared.refs?.resume;
  if (ref) reg.pendingRef.set(ref, sq);
  if (resume) reg.pendingResume.set(resume, sq);
  const sealed: Sealed = { data, hash, sig: record.sig };
  const done = committed.then(
    () => {
      sealed.sig = record.sig;
      if (fiscalEvents.length > 0) ctx.events?.fiscalStateChanged(state.rn, fiscalEvents);
    },
    (e: unknown) => {
      if (e instanceof StaleAttempt) throw e;
      throw new FiscalError(isDiskFull(e) ? '#DISK_FULL' : '#JOURNAL');
    },
  ).finally(() => {
    // the state was read back meanwhile (a failure or a stale register): the maps were reset with it
    if (reg.pending.get(sq) !== entry) return;
    reg.pending.delete(sq);
    if (prepared.tnKey && reg.pendingTn.get(prepared.tnKey) === sq) reg.pendingTn.delete(prepared.tnKey);
    if (ref && reg.pendingRef.get(ref) === sq) reg.pendingRef.delete(ref);
    if (resume && reg.pendingResume.get(resume) === sq) reg.pendingResume.delete(resume);
  });
  return { sealed, done };
}

/** Attempts of a transaction whose register another process wrote meanwhile (then RC NO #JOURNAL). */
export const STALE_ATTEMPTS = 16;

/**
 * Before attempt n (from 2) of a transaction refused as stale: a short random pause, doubling up to 64 ms,
 * so that two processes writing one register at once stop refusing each other.
 */
export function staleBackoff(attempt: number): Promise<void> {
  if (attempt < 2) return Promise.resolve();
  const ms = Math.random() * Math.min(64, 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Seals a record and waits for its commit. With `again`, a record refused because another process wrote
 * the register meanwhile is sealed again on the state read back (for records whose content does not depend
 * on the register's state: audit and log records); without it, that is #JOURNAL (the caller may retry).
 */
export async function appendRecord(ctx: ServiceContext, reg: Register, prepared: Prepared, fiscalize?: (sq: number, prevHash: string, data: Obj) => Obj, again = false): Promise<Sealed> {
  for (let attempt = 1; ; attempt += 1) {
    const s = sealRecord(ctx, reg, prepared, fiscalize);
    try {
      await s.done;
      return s.sealed;
    } catch (e) {
      if (!(e instanceof StaleAttempt)) throw e;
      if (!again || attempt >= STALE_ATTEMPTS) throw new FiscalError('#JOURNAL');
      await staleBackoff(attempt);
    }
  }
}

/** Keeps a committed record's answer for GET /last, unless a newer record was sealed meanwhile. */
export function remember(reg: Register, type: RecordType, sealed: Sealed): ReturnType<typeof answerOf> {
  const answer = answerOf(sealed);
  const sq = Number(str(sealed.data, 'SQ'));
  if (reg.state.last[type] === sq) reg.last.set(type, answer);
  if (reg.state.sq === sq) reg.last.set('any', answer);
  return answer;
}
