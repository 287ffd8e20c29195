/**
 * A fake ESC/POS network printer for the tests: a TCP server on a loopback port that parses the byte
 * stream as a printer would (text in PC858, ESC/GS commands with their parameters, the QR function
 * GS ( k, the cut, the drawer pulse ESC p, the display pass-through ESC = and the display commands),
 * and answers DLE EOT n, GS r 1 and GS I n from a state the test sets.
 * Written apart from the service's encoder: it checks the bytes, not the service's idea of them.
 */
import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';

/** The PC858 letters the tests use (the rest as ?). */
const HIGH: Readonly<Record<number, string>> = { 0x81: 'ü', 0x84: 'ä', 0x94: 'ö', 0x8e: 'Ä', 0x99: 'Ö', 0x9a: 'Ü', 0xe1: 'ß', 0xd5: '€', 0x82: 'é', 0x8a: 'è', 0x85: 'à' };

export interface Printout {
  lines: string[];
  qr: string[];
  cut: boolean;
}

export interface FakeState {
  paperEnd: boolean;
  paperNearEnd: boolean;
  coverOpen: boolean;
  drawerOpen: boolean;
  /** how long "printing" takes: the answer to GS r 1 comes after it */
  printDelayMs: number;
  /** answer status requests at all */
  answers: boolean;
  /** answer GS r 1 (a printer that takes the printout but never confirms it: false) */
  confirms: boolean;
  /** close the connection when this many bytes of print data (after the status requests) have come in; 0: never */
  closeAfterBytes: number;
  /** a byte sent instead of the status answer to DLE EOT 1 after a drawer pulse (garbage); undefined: the real answer */
  drawerAnswer: number | undefined;
  /** reads nothing for this many ms after a connection opens, then what has come meanwhile (a network that held the packets) */
  deafMs: number;
  model: string | null;
  serial: string | null;
}

export class FakeEscposPrinter {
  readonly state: FakeState = { paperEnd: false, paperNearEnd: false, coverOpen: false, drawerOpen: false, printDelayMs: 0, answers: true, confirms: true, closeAfterBytes: 0, drawerAnswer: undefined, deafMs: 0, model: 'TM-T88VI', serial: 'X5N0123456' };
  /** completed printouts (ended by a cut) */
  readonly printouts: Printout[] = [];
  drawerPulses = 0;
  /** the display's two rows as they show now */
  display: string[] = ['', ''];
  /** status requests seen (n of DLE EOT n) */
  readonly statusRequests: number[] = [];
  connections = 0;
  /** every byte received, in order, over all connections */
  received = Buffer.alloc(0);
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  private constructor() {
    this.server = createServer((socket) => this.serve(socket));
  }

  static async start(): Promise<FakeEscposPrinter> {
    const p = new FakeEscposPrinter();
    await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
    return p;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private statusByte(n: number): number {
    const s = this.state;
    switch (n) {
      case 1:
        return 0x12 | (s.drawerOpen ? 0x04 : 0) | (s.paperEnd || s.coverOpen ? 0x08 : 0);
      case 2:
        return 0x12 | (s.coverOpen ? 0x04 : 0) | (s.paperEnd ? 0x20 : 0);
      case 3:
        return 0x12;
      default:
        return 0x12 | (s.paperNearEnd ? 0x0c : 0) | (s.paperEnd ? 0x60 : 0);
    }
  }

  private serve(socket: Socket): void {
    this.connections += 1;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    // a reset connection is the service dropping a failed job: not an error of the printer
    socket.on('error', () => undefined);
    if (this.state.deafMs > 0) {
      socket.pause();
      setTimeout(() => socket.resume(), this.state.deafMs).unref();
    }
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    let job: Printout = { lines: [], qr: [], cut: false };
    let line = '';
    let device: 'printer' | 'display' = 'printer';
    let row = 0;
    let col = 0;
    let pulsed = false;
    /** bytes after the last status request of the connection: the print data */
    let data = 0;
    // answers in turn (GS r waits for the printout; a later real-time answer must not overtake it here)
    let answering = Promise.resolve();
    const send = (bytes: Buffer, delay = 0): void => {
      answering = answering.then(() => new Promise<void>((resolve) => setTimeout(() => {
        if (!socket.destroyed) socket.write(bytes);
        resolve();
      }, delay)));
    };
    const put = (ch: string): void => {
      if (device === 'display') {
        if (row < 2 && col < 20) {
          const r = (this.display[row] ?? '').padEnd(20, ' ');
          this.display[row] = (r.slice(0, col) + ch + r.slice(col + 1)).trimEnd();
          col += 1;
        }
      } else line += ch;
    };
    /** parses one command at the start of buf; the bytes it took, 0 when more are needed */
    const step = (): number => {
      const b = buf[0] as number;
      const need = (n: number): boolean => buf.length >= n;
      if (b === 0x10) {
        if (!need(3)) return 0;
        if (buf[1] === 0x04) {
          const n = buf[2] as number;
          this.statusRequests.push(n);
          if (n === 1 && pulsed && this.state.drawerAnswer !== undefined) send(Buffer.from([this.state.drawerAnswer]));
          else if (this.state.answers) send(Buffer.from([this.statusByte(n)]));
        }
        return 3;
      }
      if (b === 0x1b) {
        if (!need(2)) return 0;
        const c = buf[1] as number;
        if (c === 0x40) {
          if (device === 'display') this.display = ['', ''];
          return 2;
        }
        if (c === 0x70) {
          if (!need(5)) return 0;
          this.drawerPulses += 1;
          pulsed = true;
          return 5;
        }
        if (c === 0x3d) {
          if (!need(3)) return 0;
          device = buf[2] === 2 ? 'display' : 'printer';
          return 3;
        }
        // ESC i, ESC m (partial cuts), ESC < : no parameter
        if (c === 0x69 || c === 0x6d || c === 0x3c) return 2;
        if (!need(3)) return 0;
        if (c === 0x64) {
          for (let i = 0; i < (buf[2] as number); i += 1) job.lines.push('');
        }
        return 3; // ESC t n, ESC a n, ESC E n, ESC d n
      }
      if (b === 0x1d) {
        if (!need(2)) return 0;
        const c = buf[1] as number;
        if (c === 0x28) {
          if (!need(5)) return 0;
          const len = (buf[3] as number) + (buf[4] as number) * 256;
          if (!need(5 + len)) return 0;
          const body = buf.subarray(5, 5 + len);
          if (body[0] === 0x31 && body[1] === 0x50 && body[2] === 0x30) job.qr.push(body.subarray(3).toString('utf8'));
          return 5 + len;
        }
        if (!need(3)) return 0;
        if (c === 0x56) {
          job.cut = true;
          this.printouts.push(job);
          job = { lines: [], qr: [], cut: false };
          return 3;
        }
        if (c === 0x72) {
          // GS r 1 (paper sensor): bits 0-1 paper near end, bits 2-3 paper end (not the DLE EOT 4 layout)
          const s = this.state;
          if (s.confirms) send(Buffer.from([(s.paperNearEnd ? 0x03 : 0) | (s.paperEnd ? 0x0c : 0)]), s.printDelayMs);
          return 3;
        }
        if (c === 0x49) {
          const n = buf[2] as number;
          const text = n === 67 ? this.state.model : n === 68 ? this.state.serial : null;
          if (text !== null) send(Buffer.concat([Buffer.from([0x5f]), Buffer.from(text, 'latin1'), Buffer.from([0])]));
          return 3;
        }
        return 3;
      }
      if (b === 0x1f) {
        if (!need(4)) return 0;
        if (buf[1] === 0x24) {
          col = (buf[2] as number) - 1;
          row = (buf[3] as number) - 1;
        }
        return 4;
      }
      if (b === 0x0c) {
        this.display = ['', ''];
        row = 0;
        col = 0;
        return 1;
      }
      if (b === 0x0a) {
        if (device === 'printer') {
          job.lines.push(line);
          line = '';
        }
        return 1;
      }
      if (b < 0x20) return 1;
      put(b < 0x80 ? String.fromCharCode(b) : (HIGH[b] ?? '?'));
      return 1;
    };
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      if (this.state.closeAfterBytes > 0 && !(chunk[0] === 0x10 && chunk.length === 3)) {
        data += chunk.length;
        if (data >= this.state.closeAfterBytes) {
          // takes part of it, then the connection breaks (the rest never printed)
          buf = Buffer.concat([buf, chunk.subarray(0, Math.max(0, chunk.length - (data - this.state.closeAfterBytes)))]);
          while (buf.length > 0) {
            const n = step();
            if (n === 0) break;
            buf = buf.subarray(n);
          }
          socket.destroy();
          return;
        }
      }
      buf = Buffer.concat([buf, chunk]);
      while (buf.length > 0) {
        const n = step();
        if (n === 0) break;
        buf = buf.subarray(n);
      }
    });
  }
}
