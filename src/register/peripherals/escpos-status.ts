/**
 * The answers of DLE EOT n (Epson ESC/POS "transmit real-time status"). Each is one byte whose bits 0 and
 * 7 are 0 and bits 1 and 4 are 1 (mask 0x93 gives 0x12); anything else is no status answer.
 *
 * - n=1 printer: bit 2 drawer kick connector pin 3 high, bit 3 offline.
 * - n=2 offline cause: bit 2 cover open, bit 3 paper fed by the button, bit 5 printing stopped by paper end, bit 6 error.
 * - n=3 error cause: bit 2 recoverable error, bit 3 autocutter error, bit 5 unrecoverable error, bit 6 auto-recoverable error.
 * - n=4 roll paper sensor: bits 2-3 paper near end, bits 5-6 paper end.
 */
import type { PrinterStatus } from './driver.js';

export function isStatusByte(b: number): boolean {
  return (b & 0x93) === 0x12;
}

/** The four answers (1..4) as the printer state. Drawer open is pin 3 high (the common drawer switch wiring). */
export function statusOf(answers: { 1: number; 2: number; 3: number; 4: number }): PrinterStatus {
  const printer = answers[1];
  const offline = answers[2];
  const error = answers[3];
  const paper = answers[4];
  const errors: string[] = [];
  if (error & 0x04) errors.push('recoverable error');
  if (error & 0x08) errors.push('autocutter error');
  if (error & 0x20) errors.push('unrecoverable error');
  if (error & 0x40) errors.push('auto-recoverable error (print head temperature)');
  if (errors.length === 0 && offline & 0x40) errors.push('error');
  return {
    online: (printer & 0x08) === 0,
    drawerOpen: (printer & 0x04) !== 0,
    coverOpen: (offline & 0x04) !== 0,
    paperNearEnd: (paper & 0x0c) !== 0,
    paperEnd: (paper & 0x60) !== 0 || (offline & 0x20) !== 0,
    error: errors.length ? errors.join(', ') : null,
  };
}
