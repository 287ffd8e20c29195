/**
 * The printer driver interface: what the routes and the /register printout ask of a printer,
 * whatever it is (an ESC/POS printer on the network, the virtual printer writing a file).
 */

/** What one printout holds, made once by the caller in both forms. */
export interface PrintDocument {
  /** the ESC/POS command stream (initialise, code page, text, QR code, feed and cut) */
  escpos: Buffer;
  /** the same printout as plain text lines (the virtual printer's file, the Print_Log check file) */
  text: string;
}

/** The printer's state from its status answers; null where the printer does not say. */
export interface PrinterStatus {
  online: boolean | null;
  drawerOpen: boolean | null;
  coverOpen: boolean | null;
  paperNearEnd: boolean | null;
  paperEnd: boolean | null;
  /** an error the printer reports (cutter, unrecoverable, auto-recoverable), English, for the log and #PRINTER_ERROR */
  error: string | null;
}

export interface PrinterIdentity {
  /** model name as the printer reports it, else a description of the driver */
  moduleName: string;
  /** serial number as the printer reports it, else null */
  id: string | null;
}

/**
 * How long a job may take: `ms` counted from the moment the job has the device (waiting for another job
 * of the same printer does not count against it), and at most until `deadline` (ms since 1970) when the
 * caller has a limit of its own (the /register printout: 25 s from the request's arrival).
 */
export interface JobTime {
  ms: number;
  deadline?: number;
}

/** The job's deadline once it has the device. */
export function jobDeadline(t: JobTime): number {
  return Math.min(Date.now() + t.ms, t.deadline ?? Number.POSITIVE_INFINITY);
}

export interface PrinterDriver {
  /** the driver's name as the Printer attribute names it (`escpos`, `virtual`) */
  readonly kind: string;
  /** where it prints, for messages (`192.168.1.20:9100`, `virtual`) */
  readonly label: string;
  status(time: JobTime): Promise<PrinterStatus>;
  identity(time: JobTime): Promise<PrinterIdentity>;
  /**
   * checks the status, prints, and resolves when the printer reports the printout done; throws #PRINTER_*,
   * and #PRINTER_UNCONFIRMED when the printout was (partly) handed to the printer but its end not confirmed
   */
  print(doc: PrintDocument, time: JobTime): Promise<void>;
  /** the drawer kick pulse */
  openDrawer(time: JobTime): Promise<void>;
  /** the customer display: clears it and shows the lines (at most two of 20 characters) */
  display(lines: readonly string[], time: JobTime): Promise<void>;
}
