/**
 * The virtual printer (Printer=virtual): for installations without a printer, and for checks. What it
 * would print is appended to `<data>/print/<RN>/virtual-printer.txt` (each printout ended by a cut line);
 * the drawer pulse is a line there too; the display's text is `display.txt` (replaced each time). It has
 * paper, a closed cover and a closed drawer: its state answers false for them.
 */
import type { PrintDocument, PrinterDriver, PrinterIdentity, PrinterStatus } from './driver.js';
import { appendPrintFile, writePrintFile } from './print-files.js';

export const VIRTUAL_PAPER = 'virtual-printer.txt';
export const VIRTUAL_DISPLAY = 'display.txt';
export const CUT_LINE = '-'.repeat(20) + ' cut ' + '-'.repeat(17);

export class VirtualPrinter implements PrinterDriver {
  readonly kind = 'virtual';
  readonly label = 'virtual';

  constructor(
    private readonly dataDir: string,
    private readonly rn: string,
  ) {}

  status(): Promise<PrinterStatus> {
    return Promise.resolve({ online: true, drawerOpen: false, coverOpen: false, paperNearEnd: false, paperEnd: false, error: null });
  }

  identity(): Promise<PrinterIdentity> {
    return Promise.resolve({ moduleName: 'virtual printer', id: null });
  }

  print(doc: PrintDocument): Promise<void> {
    const text = doc.text.endsWith('\n') ? doc.text : `${doc.text}\n`;
    appendPrintFile(this.dataDir, this.rn, VIRTUAL_PAPER, `${text}${CUT_LINE}\n`);
    return Promise.resolve();
  }

  openDrawer(): Promise<void> {
    appendPrintFile(this.dataDir, this.rn, VIRTUAL_PAPER, '[drawer pulse]\n');
    return Promise.resolve();
  }

  display(lines: readonly string[]): Promise<void> {
    writePrintFile(this.dataDir, this.rn, VIRTUAL_DISPLAY, lines.map((l) => `${l}\n`).join(''));
    return Promise.resolve();
  }
}
