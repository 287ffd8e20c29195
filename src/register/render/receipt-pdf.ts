/**
 * The receipt as PDF (GET /render/pdf): the shared fixed-width line layout on a page of receipt
 * width, in DejaVu Sans Mono embedded from the dejavu-fonts-ttf package (the PDF standard fonts have
 * no č, ő or ł), with Fis.Code drawn as a vector QR code. The page is as long as the receipt.
 */
import { createRequire } from 'node:module';
import { pdfDocumentClass } from '../../shared/lazy-modules.js';
import { darkRuns, qrMatrix } from './qr/index.js';
import { type ReceiptLine, printedLength, receiptLines } from './receipt-lines.js';
import type { ReceiptView } from './receipt-view.js';

const require = createRequire(import.meta.url);
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansMono.ttf');
const FONT_BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansMono-Bold.ttf');

const FONT_SIZE = 8;
/** DejaVu Sans Mono advances 0.602 em per character. */
export const CHAR_WIDTH = FONT_SIZE * 0.602;
const LINE_HEIGHT = FONT_SIZE * 1.25;
const MARGIN = 12;
/** The QR code's side on paper: about 40 mm, readable by phone apps also for the long codes (AT, DE). */
const QR_SIDE = 113;

function heightOf(line: ReceiptLine): number {
  return line.kind === 'qr' ? QR_SIDE + LINE_HEIGHT : LINE_HEIGHT;
}

export async function receiptPdf(view: ReceiptView, width: number): Promise<Buffer> {
  const PDFDocument = await pdfDocumentClass();
  const lines = receiptLines(view, width);
  const pageWidth = Math.ceil(width * CHAR_WIDTH + 2 * MARGIN);
  const pageHeight = Math.ceil(lines.reduce((h, l) => h + heightOf(l), 0) + 2 * MARGIN);
  const doc = new PDFDocument({
    size: [pageWidth, pageHeight],
    margin: 0,
    font: FONT,
    info: { Title: `${view.title}${view.fn ? ` ${view.fn}` : ''}`, Author: view.company.name, Producer: 'efr' },
  });
  doc.registerFont('mono', FONT);
  doc.registerFont('mono-bold', FONT_BOLD);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  let y = MARGIN;
  for (const line of lines) {
    if (line.kind === 'text') {
      const indent = line.align === 'center' ? Math.floor((width - printedLength(line.text)) / 2) : 0;
      doc.font(line.bold ? 'mono-bold' : 'mono').fontSize(FONT_SIZE).text(line.text, MARGIN + indent * CHAR_WIDTH, y, { lineBreak: false });
    } else if (line.kind === 'rule') {
      doc.moveTo(MARGIN, y + LINE_HEIGHT / 2).lineTo(pageWidth - MARGIN, y + LINE_HEIGHT / 2).lineWidth(0.5).stroke('#000000');
    } else if (line.kind === 'qr') {
      const m = qrMatrix(line.data, { ecLevel: 'M', field: 'Fis.Code' });
      const module = QR_SIDE / (m.size + 8);
      const x0 = (pageWidth - QR_SIDE) / 2 + 4 * module;
      const y0 = y + 4 * module;
      for (const r of darkRuns(m)) doc.rect(x0 + r.col * module, y0 + r.row * module, r.length * module, module);
      doc.fill('#000000');
    }
    y += heightOf(line);
  }
  doc.end();
  return done;
}
