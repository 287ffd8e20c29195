/**
 * The ESC/POS network printer (Printer=escpos, Printer_Port=host[:port], default port 9100): raw TCP, one
 * connection per job. Before a printout the four real-time status answers (DLE EOT 1-4) are checked;
 * after it, GS r 1 (answered in turn) tells that the printer has worked through it.
 * The customer display is reached through the printer's display port (ESC = 2 ... ESC = 1), or directly
 * when Display_Port names a display of its own.
 */
import { FiscalError } from '../../shared/errors.js';
import { withDevice } from './device-lock.js';
import { type JobTime, type PrintDocument, type PrinterDriver, type PrinterIdentity, type PrinterStatus, jobDeadline } from './driver.js';
import { EscposConnection, type Target, targetLabel } from './escpos-connection.js';
import { DRAWER_PULSE, PRINT_DONE_REQUEST, SELECT_DISPLAY, SELECT_PRINTER, displayCommands, infoRequest, statusRequest } from './escpos-commands.js';
import { isStatusByte, statusOf } from './escpos-status.js';
import type { Trace } from './printer-trace.js';

/** A status answer comes within this time (the printer answers real-time commands at once). */
export const STATUS_TIMEOUT_MS = 3000;
/** An answer to GS I (model, serial) within this time, else the printer does not give it. */
export const INFO_TIMEOUT_MS = 1000;

export class EscposNetworkPrinter implements PrinterDriver {
  readonly kind = 'escpos';
  readonly label: string;

  constructor(
    private readonly target: Target,
    private readonly trace?: Trace,
    private readonly displayTarget?: Target,
  ) {
    this.label = targetLabel(target);
  }

  /** One job on the device: its time counts from the moment it has the device (jobDeadline). */
  private session<T>(target: Target, time: JobTime, job: (c: EscposConnection, deadline: number) => Promise<T>): Promise<T> {
    return withDevice(targetLabel(target), async () => {
      const deadline = jobDeadline(time);
      if (Date.now() >= deadline) throw new FiscalError('#PRINTER_UNREACHABLE', { value: targetLabel(target) });
      const c = await EscposConnection.open(target, deadline, this.trace);
      let result: T;
      try {
        result = await job(c, deadline);
      } catch (e) {
        // answered as failed: nothing of this job may reach the device later
        c.abort();
        throw e;
      }
      c.close();
      return result;
    });
  }

  private async readStatus(c: EscposConnection, deadline: number): Promise<PrinterStatus> {
    const answers = { 1: 0, 2: 0, 3: 0, 4: 0 };
    for (const n of [1, 2, 3, 4] as const) {
      await c.write(statusRequest(n), deadline);
      const [b] = await c.read(1, Math.min(deadline, Date.now() + STATUS_TIMEOUT_MS));
      if (b === undefined || !isStatusByte(b)) throw new FiscalError('#PRINTER_ERROR', { value: this.label, detail: `no status answer to DLE EOT ${n}` });
      answers[n] = b;
    }
    return statusOf(answers);
  }

  status(time: JobTime): Promise<PrinterStatus> {
    return this.session(this.target, time, (c, deadline) => this.readStatus(c, deadline));
  }

  identity(time: JobTime): Promise<PrinterIdentity> {
    return this.session(this.target, time, async (c, deadline) => {
      const info = async (n: 67 | 68): Promise<string | null> => {
        await c.write(infoRequest(n), deadline);
        const answer = await c.readUntil(0x00, 80, Math.min(deadline, Date.now() + INFO_TIMEOUT_MS));
        if (!answer || answer[0] !== 0x5f) return null;
        const text = answer.subarray(1).toString('latin1').replace(/[^\x20-\x7e]/g, '').trim();
        return text || null;
      };
      const model = await info(67);
      // a printer that did not answer the first request will not answer the second
      const serial = model === null ? null : await info(68);
      return { moduleName: model ?? `ESC/POS ${this.label}`, id: serial };
    });
  }

  print(doc: PrintDocument, time: JobTime): Promise<void> {
    return this.session(this.target, time, async (c, deadline) => {
      const s = await this.readStatus(c, deadline);
      if (s.paperEnd) throw new FiscalError('#PRINTER_PAPER_END', { value: this.label });
      if (s.coverOpen) throw new FiscalError('#PRINTER_COVER_OPEN', { value: this.label });
      if (s.error) throw new FiscalError('#PRINTER_ERROR', { value: this.label, detail: s.error });
      if (s.online === false) throw new FiscalError('#PRINTER_ERROR', { value: this.label, detail: 'offline' });
      // from the first byte of the printout on, a failure may have left paper printed: not confirmed, not "not printed"
      try {
        await c.write(doc.escpos, deadline);
        await c.write(PRINT_DONE_REQUEST, deadline);
        // the answer comes when the printer has worked through the printout
        await c.read(1, deadline);
      } catch {
        throw new FiscalError('#PRINTER_UNCONFIRMED', { value: this.label });
      }
    });
  }

  openDrawer(time: JobTime): Promise<void> {
    return this.session(this.target, time, async (c, deadline) => {
      await c.write(DRAWER_PULSE, deadline);
      // a status answer after the pulse: the printer took the command
      await c.write(statusRequest(1), deadline);
      const [b] = await c.read(1, Math.min(deadline, Date.now() + STATUS_TIMEOUT_MS));
      if (b === undefined || !isStatusByte(b)) throw new FiscalError('#PRINTER_ERROR', { value: this.label, detail: 'no status answer to DLE EOT 1 after the drawer pulse' });
    });
  }

  display(lines: readonly string[], time: JobTime): Promise<void> {
    const own = this.displayTarget;
    const commands = own ? displayCommands(lines) : Buffer.concat([SELECT_DISPLAY, displayCommands(lines), SELECT_PRINTER]);
    return this.session(own ?? this.target, time, async (c, deadline) => {
      await c.write(commands, deadline);
    });
  }
}
