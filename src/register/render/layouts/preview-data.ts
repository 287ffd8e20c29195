/**
 * The data the template editor previews a layout with: exactly what GET /render gives a layout
 * (receipt-html.ts `receiptLocals`: the receipt view model at the top level and as `receipt`, plus the
 * record's ESR and Fis and the Cfg in force) for the register's last receipt or the one with the FN
 * asked for. Without a receipt yet the preview still works, with the view of an empty receipt, so a
 * layout can be written before the first sale.
 */
import { FiscalError } from '../../../shared/errors.js';
import type { ServiceContext } from '../../context.js';
import { qrPngDataUrl } from '../qr/index.js';
import { receiptLocals } from '../receipt-html.js';
import { journalReceipt } from '../receipt-source.js';
import { type ReceiptRecord, receiptView } from '../receipt-view.js';

export interface PreviewData {
  locals: Record<string, unknown>;
  /** the FN of the receipt shown, or undefined when there is none */
  fn: string | undefined;
}

/** As GET /render draws the QR image into HTML. */
const HTML_QR = { ecLevel: 'M', size: 4, margin: 4 } as const;

export async function previewData(ctx: ServiceContext, rn: string, fn?: string): Promise<PreviewData> {
  const reg = ctx.registers.get(rn);
  if (!reg && fn !== undefined) throw new FiscalError('#UNKNOWN_REGISTER', { value: rn });
  if (reg) {
    try {
      const source = await journalReceipt(ctx, reg, fn);
      const plain = receiptView({ record: source.record, cfg: source.cfg, lang: source.lang });
      const view = plain.code ? { ...plain, qr: qrPngDataUrl(plain.code, HTML_QR) } : plain;
      return { locals: receiptLocals(view, source.record, source.cfg), fn: view.fn || undefined };
    } catch (e) {
      // no receipt yet: the empty one below; a named FN that is absent stays an error
      if (fn !== undefined || !(e instanceof FiscalError) || e.code !== '#NOT_FOUND') throw e;
    }
  }
  const cfg = reg?.state.cfg ?? {};
  const empty: ReceiptRecord = { type: 'Tra', data: {} };
  return { locals: receiptLocals(receiptView({ record: empty, cfg, lang: ctx.registers.lang(reg) }), empty, cfg), fn: undefined };
}
