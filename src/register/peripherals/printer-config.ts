/**
 * Which printer a register has (profile attributes, the register's own over def's):
 * - `Printer`: `escpos` (network ESC/POS printer, raw TCP) or `virtual` (writes a file); absent, `none`,
 *   `no`, `false`, `off`: no printer;
 * - `Printer_Port`: `host`, `host:port` or `[IPv6]:port` of the escpos printer; default port 9100;
 * - `Display_Port`: (ours) a customer display with a TCP port of its own; without it the display is the
 *   one on the printer's display port;
 * - `Printer_Log`: trace of the byte exchange in the service log; `Print_Log`: print check files.
 */
import { FiscalError } from '../../shared/errors.js';
import { MAX_DRAWER_TIMEOUT_S } from './drawer-wait.js';
import type { AttributeMap } from '../profile/attributes.js';
import type { ServiceContext } from '../context.js';
import type { PrinterDriver } from './driver.js';
import type { Target } from './escpos-connection.js';
import { EscposNetworkPrinter } from './network-printer.js';
import { traceOf } from './printer-trace.js';
import { VirtualPrinter } from './virtual-printer.js';
import { DEFAULT_WIDTH, WIDTHS } from '../render/receipt-lines.js';

export const DEFAULT_PORT = 9100;
export const DRIVERS = ['escpos', 'virtual'] as const;
const NONE = new Set(['none', 'no', 'false', 'off', '0', '']);

/** `host[:port]` or `[v6]:port`; undefined when it is neither. */
export function targetOf(text: string): Target | undefined {
  const t = text.trim();
  const v6 = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(t);
  const plain = /^([A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(t);
  const m = v6 ?? plain;
  if (!m) return undefined;
  const port = m[2] === undefined ? DEFAULT_PORT : Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1] as string, port };
}

type Choice = { kind: 'none' } | { kind: 'virtual' } | { kind: 'escpos'; target: Target; display?: Target };

function choiceOf(raw: AttributeMap): Choice {
  const name = (raw.get('printer') ?? '').trim().toLowerCase();
  if (NONE.has(name)) return { kind: 'none' };
  if (name === 'virtual') return { kind: 'virtual' };
  if (name !== 'escpos') throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.Printer', expected: `${DRIVERS.join(' or ')} (or none)`, value: raw.get('printer') ?? '' });
  const port = raw.get('printer_port');
  const target = port === undefined || port === 'true' ? undefined : targetOf(port);
  if (!target) throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.Printer_Port', expected: 'host or host:port of the printer (port 9100 by default)', value: port ?? '' });
  const displayText = raw.get('display_port');
  if (displayText === undefined) return { kind: 'escpos', target };
  const display = targetOf(displayText);
  if (!display) throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.Display_Port', expected: 'host or host:port of the customer display', value: displayText });
  return { kind: 'escpos', target, display };
}

/**
 * For POST /profile: refuses a Printer, Printer_Port, Display_Port or Drawer_Timeout the service could not
 * use. `attrs` are the effective ones of a register (its own over def's): printing uses those. `rn`, when
 * given, names the register in the refusal (a change of def checked against a register that inherits it).
 */
/** The columns the register's printer prints (Printer_Width: 32 for 58 mm paper, 42 or 48 for 80 mm); 42 when not set. */
export function printerWidthOf(attrs: AttributeMap): number {
  const text = attrs.get('printer_width');
  if (text === undefined) return DEFAULT_WIDTH;
  const width = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !WIDTHS.includes(width)) throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.Printer_Width', expected: '32, 42 or 48 columns', value: text });
  return width;
}

export function checkPrinterAttributes(attrs: AttributeMap, rn?: string): void {
  const timeout = attrs.get('drawer_timeout');
  try {
    printerWidthOf(attrs);
    if (timeout !== undefined && !(/^\d{1,4}$/.test(timeout.trim()) && Number(timeout) >= 1 && Number(timeout) <= MAX_DRAWER_TIMEOUT_S)) {
      throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.Drawer_Timeout', expected: `a whole number of seconds, 1 to ${MAX_DRAWER_TIMEOUT_S}`, value: timeout });
    }
    choiceOf(attrs);
  } catch (e) {
    if (rn === undefined || !(e instanceof FiscalError)) throw e;
    const field = typeof e.params.field === 'string' ? e.params.field : 'Attributes.Printer';
    throw new FiscalError(e.code, { ...e.params, field: `${field} (as register ${rn} inherits it)` });
  }
}

/** Whether a register has a printer (cheap; no connection). A setting that cannot be used counts as one: using it answers why. */
export function hasPrinter(ctx: ServiceContext, rn: string): boolean {
  const name = (ctx.profiles.settings(rn).raw.get('printer') ?? '').trim().toLowerCase();
  return !NONE.has(name);
}

/** The register's printer driver; undefined without one; #INVALID_TYPE for a setting it cannot use (an environment setting is not checked by POST /profile). */
export function printerOf(ctx: ServiceContext, rn: string): PrinterDriver | undefined {
  const choice = choiceOf(ctx.profiles.settings(rn).raw);
  switch (choice.kind) {
    case 'none':
      return undefined;
    case 'virtual':
      return new VirtualPrinter(ctx.dataDir, rn);
    case 'escpos':
      return new EscposNetworkPrinter(choice.target, traceOf(ctx, rn, 'printer'), choice.display);
  }
}

/** Print_Log: print check files. */
export function printLogOn(ctx: ServiceContext, rn: string): boolean {
  const v = ctx.profiles.settings(rn).raw.get('print_log');
  return v !== undefined && !['false', '0', 'no', 'off'].includes(v.toLowerCase());
}
