/**
 * Rendering (GET and POST /render, /render/pdf, /render/text, /render/escpos). The path names the
 * output for both methods: GET draws a journal record (RN, FN; default the register's last receipt),
 * POST the record in the body (from /tra or /find). `width` (42 or 48 columns, default 42) sets the
 * columns of every output (text, ESC/POS, PDF, and the lines of the HTML).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import { activeLayout } from '../render/layout-store.js';
import { postedRecord } from '../render/posted-record.js';
import { qrPngDataUrl } from '../render/qr/index.js';
import { receiptEscpos } from '../render/receipt-escpos.js';
import { receiptHtml } from '../render/receipt-html.js';
import { DEFAULT_WIDTH, WIDTHS } from '../render/receipt-lines.js';
import { receiptPdf } from '../render/receipt-pdf.js';
import { type ReceiptSource, journalReceipt, postedReceipt } from '../render/receipt-source.js';
import { receiptText } from '../render/receipt-text.js';
import { receiptView } from '../render/receipt-view.js';
import { guarded, queryOf, registerOf, type Query } from './http.js';

type Output = 'html' | 'pdf' | 'text' | 'escpos';

const PATHS: Readonly<Record<Output, string>> = { html: '/render', pdf: '/render/pdf', text: '/render/text', escpos: '/render/escpos' };

/** Module size of the HTML QR image in pixels, and the quiet zone in modules the standard asks for. */
const HTML_QR = { ecLevel: 'M', size: 4, margin: 4 } as const;

function widthOf(q: Query): number {
  const w = q.width;
  if (w === undefined || w === '') return DEFAULT_WIDTH;
  if (!WIDTHS.includes(Number(w)) || !/^\d+$/.test(w)) throw new FiscalError('#INVALID_VALUE', { field: 'width', detail: `the columns of the receipt, ${WIDTHS.join(' or ')}, got "${w.slice(0, 40)}"` });
  return Number(w);
}

/** Whether the query names a register (else a posted record's own RN decides). */
function namesRegister(q: Query): boolean {
  return q.rn !== undefined || q.taxid !== undefined || q.tl !== undefined || q.tt !== undefined;
}

/** The receipt as GET /render answers it (HTML with the QR image, in the register's layout); the journal page shows it too. */
export async function receiptPageHtml(ctx: ServiceContext, source: ReceiptSource, width?: number): Promise<string> {
  const { record, cfg, lang } = source;
  const plain = receiptView({ record, cfg, lang });
  const view = plain.code ? { ...plain, qr: qrPngDataUrl(plain.code, HTML_QR) } : plain;
  return receiptHtml(view, record, cfg, await activeLayout(ctx.dataDir, source.reg?.state.rn ?? 'def'), width);
}

async function answer(ctx: ServiceContext, res: FastifyReply, output: Output, q: Query, source: ReceiptSource): Promise<FastifyReply> {
  const width = widthOf(q);
  const { record, cfg, lang } = source;
  // only HTML shows the image (receiptPageHtml); the other outputs draw or command the code themselves
  const view = receiptView({ record, cfg, lang });
  switch (output) {
    case 'html':
      return res.code(200).type('text/html; charset=utf-8').send(await receiptPageHtml(ctx, source, width));
    case 'pdf':
      return res.code(200).type('application/pdf').header('content-disposition', `inline; filename="${fileName(view.fn, record.type)}.pdf"`).send(await receiptPdf(view, width));
    case 'text':
      return res.code(200).type('text/plain; charset=utf-8').send(receiptText(view, width));
    case 'escpos':
      return res.code(200).type('application/octet-stream').header('content-disposition', `attachment; filename="${fileName(view.fn, record.type)}.bin"`).send(receiptEscpos(view, width));
  }
}

function fileName(fn: string, type: string): string {
  const safe = fn.replace(/[^A-Za-z0-9._-]/g, '_');
  return safe ? `receipt-${safe}` : type.toLowerCase();
}

export function renderRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  for (const [output, path] of Object.entries(PATHS) as Array<[Output, string]>) {
    app.get(path, async (req: FastifyRequest, res: FastifyReply) =>
      guarded(ctx, req, res, 'Result', async () => {
        const q = queryOf(req);
        widthOf(q);
        const reg = await registerOf(ctx, q);
        const fn = q.fn === undefined || q.fn === '' ? undefined : q.fn;
        return answer(ctx, res, output, q, await journalReceipt(ctx, reg, fn));
      }),
    );
    app.post(path, async (req: FastifyRequest, res: FastifyReply) =>
      guarded(ctx, req, res, 'Result', async () => {
        const q = queryOf(req);
        widthOf(q);
        const text = typeof req.body === 'string' ? req.body : '';
        const record = postedRecord(text, req.headers['content-type']);
        const named = namesRegister(q) ? await registerOf(ctx, q) : undefined;
        return answer(ctx, res, output, q, await postedReceipt(ctx, record, named));
      }),
    );
  }
}
