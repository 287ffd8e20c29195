/**
 * SVG writer: a white square and one path of the dark runs, in module units (viewBox), so that it
 * scales without blur; `size` gives its width and height in pixels. No XML declaration, so that the
 * text can also be put inline into an HTML page.
 */
import { darkRuns, type QrMatrix } from './matrix.js';
import { type QrImageOptions, sideOf } from './options.js';

export function qrSvgOf(m: QrMatrix, o: QrImageOptions): string {
  const side = sideOf(m, o);
  const px = side * o.size;
  const d = darkRuns(m)
    .map((r) => `M${r.col + o.margin} ${r.row + o.margin}h${r.length}v1h-${r.length}z`)
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${px}" height="${px}" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path fill="#000" d="${d}"/></svg>`
  );
}
