/**
 * The printer driver interface (issue 13): what the routes and the /register printout ask of a printer,
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

export interface PrinterDriver {
  /** the driver's name as the Printer attribute names it (`escpos`, `virtual`) */
  readonly kind: string;
  /** where it prints, for messages (`192.168.1.20:9100`, `virtual`) */
  readonly label: string;
  status(deadline: number): Promise<PrinterStatus>;
  identity(deadline: number): Promise<PrinterIdentity>;
  /** checks the status, prints, and resolves when the printer reports the printout done; throws #PRINTER_* */
  print(doc: PrintDocument, deadline: number): Promise<void>;
  /** the drawer kick pulse */
  openDrawer(deadline: number): Promise<void>;
  /** the customer display: clears it and shows the lines (at most two of 20 characters) */
  display(lines: readonly string[], deadline: number): Promise<void>;
}
