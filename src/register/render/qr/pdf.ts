/** PDF writer (pdfkit): one page the size of the code, the dark runs as filled vector rectangles. */
import { pdfDocumentClass } from '../../../shared/lazy-modules.js';
import { darkRuns, type QrMatrix } from './matrix.js';
import { type QrImageOptions, sideOf } from './options.js';

/** `size` is points per module (5 pt = 1.76 mm). */
export async function qrPdf(m: QrMatrix, o: QrImageOptions, title = 'QR code'): Promise<Buffer> {
  const PDFDocument = await pdfDocumentClass();
  const side = sideOf(m, o);
  const pt = side * o.size;
  const doc = new PDFDocument({ size: [pt, pt], margin: 0, info: { Title: title, Producer: 'efr' } });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.rect(0, 0, pt, pt).fill('#ffffff');
  for (const r of darkRuns(m)) doc.rect((r.col + o.margin) * o.size, (r.row + o.margin) * o.size, r.length * o.size, o.size);
  doc.fill('#000000');
  doc.end();
  return done;
}
