/** The modules of a QR code: which are dark, from the `qrcode` package's encoder. */
import type QRCode from 'qrcode';
import { qrcodeModule } from '../../../shared/lazy-modules.js';
import { FiscalError } from '../../../shared/errors.js';

export type EcLevel = 'L' | 'M' | 'Q' | 'H';
export const EC_LEVELS: readonly EcLevel[] = ['L', 'M', 'Q', 'H'];

export interface QrMatrix {
  /** modules per side (21 for version 1 ... 177 for version 40), without the quiet zone */
  readonly size: number;
  readonly version: number;
  /** rows[row][col]: true for a dark module */
  readonly rows: readonly (readonly boolean[])[];
}

/** A run of dark modules in one row, the unit the vector writers draw (fewer shapes than one per module). */
export interface DarkRun {
  row: number;
  col: number;
  length: number;
}

/**
 * Encodes `text` (UTF-8 in byte mode where it is not numeric or alphanumeric). Text that does not fit
 * in a QR code at this error correction level is a bad value of the field that gave it.
 */
export function qrMatrix(text: string, options: { ecLevel: EcLevel; field?: string }): QrMatrix {
  const field = options.field ?? 'text';
  if (text === '') throw new FiscalError('#MISSING_FIELD', { field });
  let code: ReturnType<typeof QRCode.create>;
  try {
    code = qrcodeModule().create(text, { errorCorrectionLevel: options.ecLevel });
  } catch (e) {
    // the encoder's only refusal for a non-empty string is its capacity
    const why = e instanceof Error ? e.message : String(e);
    throw new FiscalError('#INVALID_VALUE', { field, detail: `${text.length} characters do not fit in a QR code with error correction ${options.ecLevel} (${why})` });
  }
  const { size, data } = code.modules;
  const rows: boolean[][] = [];
  for (let r = 0; r < size; r++) {
    const row: boolean[] = new Array<boolean>(size);
    for (let c = 0; c < size; c++) row[c] = data[r * size + c] === 1;
    rows.push(row);
  }
  return { size, version: code.version, rows };
}

/** The dark runs of every row, left to right. */
export function darkRuns(m: QrMatrix): DarkRun[] {
  const runs: DarkRun[] = [];
  m.rows.forEach((row, r) => {
    let start = -1;
    for (let c = 0; c <= m.size; c++) {
      const dark = c < m.size && row[c] === true;
      if (dark && start < 0) start = c;
      else if (!dark && start >= 0) {
        runs.push({ row: r, col: start, length: c - start });
        start = -1;
      }
    }
  });
  return runs;
}

/** Whether the module at (row, col) of the image with a quiet zone of `margin` modules is dark. */
export function darkWithMargin(m: QrMatrix, margin: number, row: number, col: number): boolean {
  const r = row - margin;
  const c = col - margin;
  return r >= 0 && c >= 0 && r < m.size && c < m.size && m.rows[r]?.[c] === true;
}
