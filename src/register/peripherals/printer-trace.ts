/**
 * Printer_Log: the byte exchange with a printer or display as one service log line per chunk. Control
 * commands by name (ESC, GS, DLE EOT, LF ...) with their letter and parameters; every text byte, of any
 * run length (receipt text, QR data), only counted: the service log holds no business data (docs/peripherals.md).
 */
import type { ServiceContext } from '../context.js';
import { serviceLogOf } from '../logs/service-log.js';

export type Trace = (direction: 'out' | 'in', bytes: Buffer) => void;

const NAMES: Readonly<Record<number, string>> = { 0x0a: 'LF', 0x0c: 'FF', 0x0d: 'CR', 0x09: 'HT' };
const MAX_TOKENS = 400;

const hex = (b: number): string => b.toString(16).padStart(2, '0');

/** The length of the ESC command at `i` (ESC and its letter included), as the printer parses it. */
function escLength(bytes: Buffer, i: number): number {
  const c = bytes[i + 1];
  if (c === undefined) return 1;
  // ESC p m t1 t2 (drawer pulse)
  if (c === 0x70) return 5;
  // ESC @ (initialise), ESC i / ESC m (cuts), ESC < (return home)
  if (c === 0x40 || c === 0x69 || c === 0x6d || c === 0x3c) return 2;
  // ESC t n, ESC a n, ESC E n, ESC d n, ESC = n, ESC ! n, ESC - n, ESC M n, ESC J n, ESC 2/3 ...: one parameter
  return 3;
}

/** The length of the GS command at `i`. */
function gsLength(bytes: Buffer, i: number): number {
  const c = bytes[i + 1];
  if (c === undefined) return 1;
  if (c === 0x28) {
    // GS ( k pL pH data: the function's data (QR code text) counts as text
    const pl = bytes[i + 3] ?? 0;
    const ph = bytes[i + 4] ?? 0;
    return 5 + pl + ph * 256;
  }
  // GS V 65/66 n: cut with feed
  if (c === 0x56 && (bytes[i + 2] === 65 || bytes[i + 2] === 66)) return 4;
  return 3;
}

/**
 * The trace of one chunk: the commands by name (`ESC @`, `GS V 00`, `DLE EOT 04`, `US $ 01 02`), every byte
 * of text in between, of any length, only as a count (`<n bytes>`), the data of `GS ( k` (QR code text)
 * likewise. Nothing printed can be read from it.
 */
export function traceText(bytes: Buffer): string {
  const out: string[] = [];
  let i = 0;
  let text = 0;
  const flush = (): void => {
    if (text > 0) out.push(`<${text} bytes>`);
    text = 0;
  };
  while (i < bytes.length && out.length < MAX_TOKENS) {
    const b = bytes[i] as number;
    const params = (from: number, to: number): string[] => Array.from(bytes.subarray(from, Math.min(to, bytes.length))).map(hex);
    if (b === 0x1b) {
      flush();
      const n = escLength(bytes, i);
      const letter = bytes[i + 1];
      out.push('ESC', ...(letter === undefined ? [] : [String.fromCharCode(letter)]), ...params(i + 2, i + n));
      i += n;
    } else if (b === 0x1d) {
      flush();
      const n = gsLength(bytes, i);
      const letter = bytes[i + 1];
      if (letter === 0x28) {
        out.push('GS', '(', ...params(i + 2, i + 5), `<${Math.max(0, Math.min(n, bytes.length - i) - 5)} bytes>`);
      } else out.push('GS', ...(letter === undefined ? [] : [String.fromCharCode(letter)]), ...params(i + 2, i + n));
      i += n;
    } else if (b === 0x10) {
      flush();
      if (bytes[i + 1] === 0x04) out.push('DLE', 'EOT', ...params(i + 2, i + 3));
      else out.push('DLE', ...params(i + 1, i + 3));
      i += 3;
    } else if (b === 0x1f) {
      flush();
      const letter = bytes[i + 1];
      out.push('US', ...(letter === undefined ? [] : [String.fromCharCode(letter)]), ...params(i + 2, i + 4));
      i += 4;
    } else if (b < 0x20 || b === 0x7f) {
      flush();
      out.push(NAMES[b] ?? hex(b));
      i += 1;
    } else {
      text += 1;
      i += 1;
    }
  }
  flush();
  if (i < bytes.length) out.push(`... (${bytes.length} bytes in all)`);
  return out.join(' ');
}

/** The trace of a register's printer when its Printer_Log is on and the service logs; else undefined. */
export function traceOf(ctx: ServiceContext, rn: string, device: string): Trace | undefined {
  const raw = ctx.profiles.settings(rn).raw;
  const on = raw.get('printer_log');
  if (on === undefined || ['false', '0', 'no', 'off'].includes(on.toLowerCase())) return undefined;
  const logger = serviceLogOf(ctx)?.logger;
  if (!logger) return undefined;
  return (direction, bytes) => logger.info({ type: 'PRINTER', rn, device, direction, length: bytes.length, bytes: traceText(bytes) }, `printer ${direction === 'out' ? '<-' : '->'}`);
}
