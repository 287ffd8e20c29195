/**
 * /register with a printer: the sealed receipt is printed before the answer, unless
 * ESR.DO is `noprint`. While a register's transaction is processed and printed, GET /last of that
 * register answers 423 (`printingNow`).
 *
 * The record is journaled before it is printed (the receipt is fiscal, its number is taken). The mark
 * `print/<RN>/unprinted/<SQ>.json` is written durably in the step the record is sealed, before it is
 * submitted (`onSeal`; a mark that cannot be written registers nothing), and removed once the printer has
 * confirmed the printout. A printout that fails answers RC NO (#PRINTER_*); one handed to the printer but
 * not confirmed answers #PRINTER_UNCONFIRMED and its mark says `maybe`: the retry prints it marked as a
 * copy. The POS sending the same transaction again gets the #DUPLICATE path, which prints the receipt when
 * (and only when) it is still marked. Without a TN, `/register` takes such a receipt for the same request
 * only while it is the last record of its TL/TT and younger than RETRY_WINDOW_MS (`unprintedDuplicate`).
 * Printouts of one register run one at a time, so a retry arriving while the first printout runs waits and
 * then finds it printed.
 */
import { FiscalError, type Lang } from '../../shared/errors.js';
import { type Doc, type Obj, isObj, str } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { identityOf } from '../esr/normalize.js';
import type { Register } from '../registers.js';
import { receiptEscpos } from '../render/receipt-escpos.js';
import { receiptOfRecord } from '../render/receipt-source.js';
import { receiptText } from '../render/receipt-text.js';
import { receiptView } from '../render/receipt-view.js';
import type { Sealed } from '../record-answer.js';
import { withDevice } from './device-lock.js';
import { clearUnprinted, findMark, markUnprinted, writePrintFile } from './print-files.js';
import { hasPrinter, printLogOn, printerOf, printerWidthOf } from './printer-config.js';

/** POST /peri/print: the printout within 30 s (the spec's limit), counted from the moment it has the printer. */
export const PRINT_TIMEOUT_MS = 30_000;
/** /register: the answer (registration and printout) within 25 s of the request's arrival, inside the POS's timeouts. */
export const RECEIPT_ANSWER_MS = 25_000;
/** /register without a TN: an unprinted receipt is "this request again" for at most this long (the time a POS retries). */
export const RETRY_WINDOW_MS = 10 * 60_000;

/** The line a receipt printed again after an unconfirmed printout carries (as the training marker is printed). */
const COPY: Readonly<Record<Lang, string>> = { en: 'COPY', de: 'KOPIE', fr: 'COPIE', nl: 'KOPIE' };

const busy = new WeakMap<ServiceContext, Map<string, number>>();

function busyOf(ctx: ServiceContext): Map<string, number> {
  let m = busy.get(ctx);
  if (!m) busy.set(ctx, (m = new Map()));
  return m;
}

/** A transaction of the register is being processed with its printout: GET /last answers 423. */
export function printingNow(ctx: ServiceContext, rn: string): boolean {
  return (busy.get(ctx)?.get(rn) ?? 0) > 0;
}

export interface Printout {
  /**
   * In the step the record is sealed, before it is submitted: writes its unprinted mark durably. Throws
   * (#PRINTER_ERROR) when it cannot: nothing is registered then.
   */
  onSeal(sq: number, ch: Buffer): void;
  /** the registration failed: the marks this request wrote are removed */
  abandon(): void;
  /** prints the registered (or duplicate) receipt; throws #PRINTER_* (RC NO) when it cannot */
  print(reg: Register, sealed: Sealed, duplicate: boolean): Promise<void>;
  /** the request is answered: GET /last answers again */
  end(): void;
}

function noPrint(esr: Obj): boolean {
  return (str(esr, 'DO') ?? '').split(/[\s,;]+/).some((w) => w.toLowerCase() === 'noprint');
}

/**
 * The printout of a /register request, undefined when nothing is printed: no printer, not a `Tra`,
 * DO=noprint. From here until `end` the register counts as printing. `arrived`: when the request came in
 * (ms since 1970); the answer is due RECEIPT_ANSWER_MS after it.
 */
export function receiptPrintout(ctx: ServiceContext, rn: string, doc: Doc, arrived: number): Printout | undefined {
  if (doc.root !== 'Tra' || !hasPrinter(ctx, rn)) return undefined;
  const esr = doc.body.ESR;
  if (!isObj(esr) || noPrint(esr)) return undefined;
  const { tl, tt } = identityOf(esr);
  const counts = busyOf(ctx);
  counts.set(rn, (counts.get(rn) ?? 0) + 1);
  let ended = false;
  /** the marks this request wrote (more than one when a stale attempt was sealed again), with their content hash */
  const marked = new Map<number, string>();
  const drop = (sq: number): void => {
    const found = findMark(ctx.dataDir, rn, sq);
    if (found?.mark?.ch === marked.get(sq)) clearUnprinted(ctx.dataDir, rn, sq);
    marked.delete(sq);
  };
  return {
    onSeal(sq, ch) {
      const key = ch.toString('base64');
      try {
        markUnprinted(ctx.dataDir, rn, { sq, tl, tt, ch: key, at: ctx.clock.now().getTime() });
      } catch (e) {
        throw new FiscalError('#PRINTER_ERROR', { value: `print/${rn}/unprinted`, detail: `the mark of the receipt cannot be written (${e instanceof Error ? e.message : String(e)}); nothing was registered` });
      }
      marked.set(sq, key);
    },
    abandon() {
      for (const sq of [...marked.keys()]) drop(sq);
    },
    async print(reg, sealed, duplicate) {
      const sq = Number(str(sealed.data, 'SQ'));
      // a stale attempt sealed before this one: its mark is no receipt
      for (const old of [...marked.keys()]) if (old !== sq) drop(old);
      const deadline = arrived + RECEIPT_ANSWER_MS;
      await withDevice(`receipt|${ctx.dataDir}|${rn}`, async () => {
        const found = findMark(ctx.dataDir, rn, sq);
        // a duplicate whose receipt was printed (by the first answer or a retry before this one): nothing to print
        if (!found && duplicate) return;
        const record = await ctx.registers.record(reg, sq);
        if (!record) throw new FiscalError('#JOURNAL');
        if (found?.mark && found.mark.ch !== record.ch?.toString('base64')) {
          // a mark left by a record never committed under this SQ (a crash between seal and commit)
          clearUnprinted(ctx.dataDir, rn, sq);
          if (duplicate) return;
        }
        let printer;
        let width;
        try {
          printer = printerOf(ctx, rn);
          width = printerWidthOf(ctx.profiles.settings(rn).raw);
        } catch (e) {
          // a setting from the environment that cannot be used: the record is registered, so RC NO (retry), not BAD
          throw new FiscalError('#PRINTER_ERROR', { value: 'Printer', detail: e instanceof Error ? e.message : String(e) });
        }
        if (!printer) {
          // the printer was taken out of the profile meanwhile: nothing is printed any more, no mark is kept
          clearUnprinted(ctx.dataDir, rn, sq);
          return;
        }
        const source = await receiptOfRecord(ctx, reg, record);
        const view = receiptView({ record: source.record, cfg: source.cfg, lang: source.lang });
        const copy = found?.mark?.maybe === true;
        if (copy) view.training = [view.training, COPY[view.lang]].filter(Boolean).join(' ');
        const text = receiptText(view, width);
        try {
          await printer.print({ escpos: receiptEscpos(view, width), text }, { ms: RECEIPT_ANSWER_MS, deadline });
        } catch (e) {
          if (e instanceof FiscalError && e.code === '#PRINTER_UNCONFIRMED' && !copy) {
            const mark = found?.mark ?? { sq, tl, tt, ch: record.ch?.toString('base64') ?? '', at: ctx.clock.now().getTime() };
            try {
              markUnprinted(ctx.dataDir, rn, { ...mark, maybe: true });
            } catch {
              // the mark stays as it was: the retry prints an original (the printer did not confirm this one)
            }
          }
          throw e;
        }
        clearUnprinted(ctx.dataDir, rn, sq);
        marked.delete(sq);
        if (printLogOn(ctx, rn)) writePrintFile(ctx.dataDir, rn, `${sq}.txt`, text);
      });
    },
    end() {
      if (ended) return;
      ended = true;
      const n = (counts.get(rn) ?? 1) - 1;
      if (n > 0) counts.set(rn, n);
      else counts.delete(rn);
    },
  };
}

/**
 * `/register` without a TN: the request is the one whose printout failed only while that receipt is still
 * the last record of its TL/TT, is marked unprinted, has the same content hash, and was registered less
 * than RETRY_WINDOW_MS ago; its SQ, else undefined (then it is a new sale). A safe retry sends the same TN.
 */
export function unprintedDuplicate(ctx: ServiceContext, reg: Register, esr: Obj, ch: Buffer): number | undefined {
  const rn = reg.state.rn;
  if (!hasPrinter(ctx, rn)) return undefined;
  const { tl, tt } = identityOf(esr);
  const last = reg.state.lastTT[`${tl}/${tt}`];
  if (!last) return undefined;
  const found = findMark(ctx.dataDir, rn, last.sq);
  if (!found) return undefined;
  const at = found.mark?.at ?? found.mtimeMs;
  if (ctx.clock.now().getTime() - at > RETRY_WINDOW_MS) return undefined;
  if (found.mark && found.mark.ch !== ch.toString('base64')) return undefined;
  return last.sq;
}
