/**
 * EPS writer: plain PostScript (EPSF-3.0, language level 2 for rectfill) with a BoundingBox of the
 * code in points; the dark runs as rectangles in module units. PostScript's y axis points up, so
 * module row r is drawn at y = side - 1 - r.
 */
import { darkRuns, type QrMatrix } from './matrix.js';
import { type QrImageOptions, sideOf } from './options.js';

/** `size` is points per module. */
export function qrEps(m: QrMatrix, o: QrImageOptions, title = 'QR code'): string {
  const side = sideOf(m, o);
  const pt = side * o.size;
  const lines = [
    '%!PS-Adobe-3.0 EPSF-3.0',
    `%%BoundingBox: 0 0 ${pt} ${pt}`,
    `%%HiResBoundingBox: 0 0 ${pt} ${pt}`,
    `%%Title: ${title.replace(/[^\x20-\x7e]/g, '?')}`,
    '%%Creator: efr',
    '%%LanguageLevel: 2',
    '%%EndComments',
    'save',
    '/r { 1 rectfill } bind def',
    `${o.size} ${o.size} scale`,
    `1 setgray 0 0 ${side} ${side} rectfill`,
    '0 setgray',
  ];
  for (const run of darkRuns(m)) lines.push(`${run.col + o.margin} ${side - 1 - (run.row + o.margin)} ${run.length} r`);
  lines.push('restore', 'showpage', '%%EOF', '');
  return lines.join('\n');
}
