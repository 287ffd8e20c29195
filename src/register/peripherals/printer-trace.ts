/**
 * Printer_Log: the byte exchange with a printer or display as one service log line per chunk. Control
 * bytes by name (ESC, GS, DLE, EOT, LF ...), command letters as characters, other bytes in hex; a run of 4 or more printable bytes
 * (receipt text, QR data) only as its length: the service log holds no business data (docs/peripherals.md).
 */
import type { ServiceContext } from '../context.js';
import { serviceLogOf } from '../logs/service-log.js';

export type Trace = (direction: 'out' | 'in', bytes: Buffer) => void;

const NAMES: Readonly<Record<number, string>> = { 0x0a: 'LF', 0x0c: 'FF', 0x0d: 'CR', 0x10: 'DLE', 0x1b: 'ESC', 0x1d: 'GS', 0x1f: 'US' };
const MAX_TOKENS = 400;

function printable(b: number): boolean {
  return (b >= 0x20 && b < 0x7f) || b >= 0x80;
}

export function traceText(bytes: Buffer): string {
  const out: string[] = [];
  let i = 0;
  while (i < bytes.length && out.length < MAX_TOKENS) {
    let j = i;
    while (j < bytes.length && printable(bytes[j] as number)) j += 1;
    if (j - i >= 4) {
      out.push(`<${j - i} bytes>`);
      i = j;
      continue;
    }
    if (j > i) {
      // a command letter or two (ESC @, GS V): as the characters
      out.push(...Array.from(bytes.subarray(i, j)).map((c) => (c < 0x7f ? String.fromCharCode(c) : c.toString(16))));
      i = j;
      continue;
    }
    const b = bytes[i] as number;
    out.push(b === 0x04 && bytes[i - 1] === 0x10 ? 'EOT' : (NAMES[b] ?? b.toString(16).padStart(2, '0')));
    i += 1;
  }
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
