/**
 * The ESC/POS commands of the peripherals (Epson's command set, which most receipt printers and line
 * displays follow): status requests, the drawer pulse, the customer display, plain text printouts.
 */
import { PC858_SELECT, encodePc858 } from '../render/escpos-codepage.js';

export const ESC = 0x1b;
export const GS = 0x1d;
export const DLE = 0x10;
export const EOT = 0x04;
export const US = 0x1f;
export const LF = 0x0a;
export const FF = 0x0c;

/** DLE EOT n: real-time status (1 printer, 2 offline cause, 3 error cause, 4 roll paper sensor), one byte back. */
export function statusRequest(n: 1 | 2 | 3 | 4): Buffer {
  return Buffer.from([DLE, EOT, n]);
}

/**
 * GS r 1: paper sensor status. Unlike DLE EOT it is processed in turn, after everything sent before it:
 * its answer says the printout before it is done.
 */
export const PRINT_DONE_REQUEST = Buffer.from([GS, 0x72, 0x01]);

/** GS I n: printer information; 67 the model name, 68 the serial number (Epson: `_` + text + NUL). */
export function infoRequest(n: 67 | 68): Buffer {
  return Buffer.from([GS, 0x49, n]);
}

/** ESC p m t1 t2: a pulse on drawer kick connector pin 2, 50 ms on (t1 25 x 2 ms), 500 ms off (t2 250 x 2 ms). */
export const DRAWER_PULSE = Buffer.from([ESC, 0x70, 0x00, 25, 250]);

/** ESC = n: the peripheral the following data is for, on a printer with a display on its pass-through port. */
export const SELECT_DISPLAY = Buffer.from([ESC, 0x3d, 0x02]);
export const SELECT_PRINTER = Buffer.from([ESC, 0x3d, 0x01]);

/** The customer display: two lines of 20 characters (Epson DM-D and compatible). */
export const DISPLAY_COLUMNS = 20;
export const DISPLAY_ROWS = 2;

/** The display's lines from a text: at most two lines, each cut to 20 characters, tabs and controls as spaces. */
export function displayLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  return lines.slice(0, DISPLAY_ROWS).map((l) => Array.from(l.replace(/[\u0000-\u001f\u007f]/g, ' ')).slice(0, DISPLAY_COLUMNS).join(''));
}

/** ESC @ (initialise), ESC t 19 (PC858), FF (clear), line 1, US $ 1 2 (cursor to column 1 of row 2), line 2. */
export function displayCommands(lines: readonly string[]): Buffer {
  const parts: Buffer[] = [Buffer.from([ESC, 0x40, ESC, 0x74, PC858_SELECT, FF])];
  lines.slice(0, DISPLAY_ROWS).forEach((line, i) => {
    if (i > 0) parts.push(Buffer.from([US, 0x24, 1, i + 1]));
    parts.push(encodePc858(line));
  });
  return Buffer.concat(parts);
}

/** The width of a plain printout: the receipts' 42 columns (font B on an 80 mm printer). */
export const PRINT_COLUMNS = 42;

/** The lines of POST /peri/print: CR LF or LF separated, tabs as spaces, other controls dropped (no command can be smuggled in). */
export function printLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  return lines.map((l) => l.replace(/\t/g, ' ').replace(/[\u0000-\u001f\u007f]/g, ''));
}

/** A plain printout: initialise, code page PC858, the lines, feed and full cut (as the receipts end). */
export function textPrintout(lines: readonly string[]): Buffer {
  const parts: Buffer[] = [Buffer.from([ESC, 0x40, ESC, 0x74, PC858_SELECT])];
  for (const line of lines) parts.push(encodePc858(line), Buffer.from([LF]));
  parts.push(Buffer.from([ESC, 0x64, 4, GS, 0x56, 0x00]));
  return Buffer.concat(parts);
}
