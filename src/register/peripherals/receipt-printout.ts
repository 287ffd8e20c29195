/**
 * /register with a printer (issue 13 point 3): the sealed receipt is printed before the answer, unless
 * ESR.DO is `noprint`. While a register's transaction is processed and printed, GET /last of that
 * register answers 423 (`printingNow`).
 *
 * The record is journaled before it is printed (the receipt is fiscal, its number is taken). A printout
 * that fails answers RC NO (#PRINTER_*) and leaves a mark `print/<RN>/unprinted/<SQ>.json`; the POS sending
 * the same transaction again gets the #DUPLICATE path, which prints the receipt when (and only when) it is
 * still marked, and answers. Without a TN, `/register` finds such an unprinted receipt by TL/TT and the
 * content hash of the request (`unprintedDuplicate`): never registered twice. Printouts of one register
 * run one at a time, so a retry arriving while the first printout runs waits and then finds it printed.
 */
import { contentHashes } from '../../shared/canonical.js';
import { FiscalError } from '../../shared/errors.js';
import { type Doc, type Obj, isObj, str } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { identityOf } from '../esr/normalize.js';
import type { Register } from '../registers.js';
import { receiptEscpos } from '../render/receipt-escpos.js';
import { DEFAULT_WIDTH } from '../render/receipt-lines.js';
import { receiptOfRecord } from '../render/receipt-source.js';
import { receiptText } from '../render/receipt-text.js';
import { receiptView } from '../render/receipt-view.js';
import type { Sealed } from '../respond.js';
import { withDevice } from './device-lock.js';
import { clearUnprinted, isUnprinted, markUnprinted, unprintedOf, writePrintFile } from './print-files.js';
import { hasPrinter, printLogOn, printerOf } from './printer-config.js';

/** The spec's limit: the printout within 30 s before the response. */
export const PRINT_TIMEOUT_MS = 30_000;

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
 * DO=noprint. From here until `end` the register counts as printing.
 */
export function receiptPrintout(ctx: ServiceContext, rn: string, doc: Doc): Printout | undefined {
  if (doc.root !== 'Tra' || !hasPrinter(ctx, rn)) return undefined;
  const esr = doc.body.ESR;
  if (!isObj(esr) || noPrint(esr)) return undefined;
  const { tl, tt } = identityOf(esr);
  const ch = contentHashes(esr).ch.toString('base64');
  const counts = busyOf(ctx);
  counts.set(rn, (counts.get(rn) ?? 0) + 1);
  let ended = false;
  return {
    async print(reg, sealed, duplicate) {
      const sq = Number(str(sealed.data, 'SQ'));
      if (!duplicate) markUnprinted(ctx.dataDir, rn, { sq, tl, tt, ch });
      await withDevice(`receipt|${ctx.dataDir}|${rn}`, async () => {
        // a duplicate whose receipt was printed (by the first answer or a retry before this one): nothing to print
        if (!isUnprinted(ctx.dataDir, rn, sq)) return;
        let printer;
        try {
          printer = printerOf(ctx, rn);
        } catch (e) {
          // a setting from the environment that cannot be used: the record is registered, so RC NO (retry), not BAD
          throw new FiscalError('#PRINTER_ERROR', { value: 'Printer', detail: e instanceof Error ? e.message : String(e) });
        }
        if (!printer) return;
        const record = await ctx.registers.record(reg, sq);
        if (!record) return;
        const source = await receiptOfRecord(ctx, reg, record);
        const view = receiptView({ record: source.record, cfg: source.cfg, lang: source.lang });
        const text = receiptText(view, DEFAULT_WIDTH);
        await printer.print({ escpos: receiptEscpos(view, DEFAULT_WIDTH), text }, Date.now() + PRINT_TIMEOUT_MS);
        clearUnprinted(ctx.dataDir, rn, sq);
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
 * `/register` without a TN: a receipt of this TL/TT journaled from the same request whose printout failed
 * is that request again (its answer was RC NO): its SQ, else undefined.
 */
export function unprintedDuplicate(ctx: ServiceContext, rn: string, esr: Obj, ch: Buffer): number | undefined {
  if (!hasPrinter(ctx, rn)) return undefined;
  const { tl, tt } = identityOf(esr);
  const key = ch.toString('base64');
  return unprintedOf(ctx.dataDir, rn).find((u) => u.tl === tl && u.tt === tt && u.ch === key)?.sq;
}
