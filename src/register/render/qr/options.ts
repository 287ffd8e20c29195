/**
 * The options of a QR image (module size, quiet zone, error correction) and their bounds, read from
 * query values or a profile attribute; every refusal names its parameter.
 */
import { FiscalError } from '../../../shared/errors.js';
import { EC_LEVELS, type EcLevel, type QrMatrix } from './matrix.js';

export type QrFormat = 'png' | 'bmp' | 'svg' | 'pc437' | 'pdf' | 'eps';
export const QR_FORMATS: readonly QrFormat[] = ['png', 'bmp', 'svg', 'pc437', 'pdf', 'eps'];

export interface QrImageOptions {
  ecLevel: EcLevel;
  /** pixels (points for PDF and EPS, characters for pc437) per module */
  size: number;
  /** quiet zone in modules on each side */
  margin: number;
  /** bits per pixel of BMP: 1 (monochrome, the default) or 24 */
  bits?: 1 | 24;
}

/**
 * Bounds: a module of more than 40 px is of no use, a quiet zone over 40 modules neither; the image
 * side is bounded so that one request cannot make the service build a huge bitmap (2048 px square:
 * 512 KB as 1-bit BMP, 12 MB as 24-bit), which still takes a version 40 code at 11 px per module.
 */
export const QR_BOUNDS = { size: { min: 1, max: 40 }, margin: { min: 0, max: 40 }, maxSide: 2048, maxText: 4296 } as const;

export function wholeNumber(field: string, value: string, min: number, max: number): number {
  if (!/^\d{1,6}$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
    throw new FiscalError('#INVALID_VALUE', { field, detail: `a whole number from ${min} to ${max}, got "${value}"` });
  }
  return Number(value);
}

export function ecLevelOf(field: string, value: string): EcLevel {
  const level = value.trim().toUpperCase();
  if (!(EC_LEVELS as readonly string[]).includes(level)) throw new FiscalError('#INVALID_VALUE', { field, detail: `one of L, M, Q, H, got "${value}"` });
  return level as EcLevel;
}

export function formatOf(field: string, value: string, allowed: readonly QrFormat[] = QR_FORMATS): QrFormat {
  const f = value.trim().toLowerCase();
  if (!(allowed as readonly string[]).includes(f)) throw new FiscalError('#INVALID_VALUE', { field, detail: `one of ${allowed.join(', ')}, got "${value}"` });
  return f as QrFormat;
}

export function bitsOf(field: string, value: string): 1 | 24 {
  if (value.trim() === '1') return 1;
  if (value.trim() === '24') return 24;
  throw new FiscalError('#INVALID_VALUE', { field, detail: `1 or 24 (bits per pixel of the BMP), got "${value}"` });
}

/** The modules per side including the quiet zone; refuses an image larger than the bound. */
export function sideOf(m: QrMatrix, o: QrImageOptions): number {
  const modules = m.size + 2 * o.margin;
  if (modules * o.size > QR_BOUNDS.maxSide) {
    throw new FiscalError('#INVALID_VALUE', {
      field: 'size',
      detail: `the image would be ${modules * o.size} units wide (${modules} modules of ${o.size}); at most ${QR_BOUNDS.maxSide}: choose a smaller size or margin`,
    });
  }
  return modules;
}
