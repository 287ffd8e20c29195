/**
 * One raw TCP connection to an ESC/POS device (port 9100): writes, and reads of a given number of bytes,
 * each limited by the caller's deadline; never waits forever. Closed by the caller (`close`), also on failure.
 */
import { Socket } from 'node:net';
import { FiscalError } from '../../shared/errors.js';
import type { Trace } from './printer-trace.js';

/** Connecting takes at most this long, whatever the deadline. */
export const CONNECT_TIMEOUT_MS = 5000;

export interface Target {
  host: string;
  port: number;
}

export function targetLabel(t: Target): string {
  return t.host.includes(':') ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`;
}

export class EscposConnection {
  private received = Buffer.alloc(0);
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly label: string,
    private readonly trace: Trace | undefined,
  ) {
    socket.on('data', (chunk: Buffer) => {
      trace?.('in', chunk);
      this.received = Buffer.concat([this.received, chunk]);
      this.wake?.();
    });
    const end = (e?: Error): void => {
      this.failure ??= e ?? new Error('connection closed by the printer');
      this.wake?.();
    };
    socket.on('error', end);
    socket.on('close', () => end());
  }

  static open(target: Target, deadline: number, trace?: Trace): Promise<EscposConnection> {
    const label = targetLabel(target);
    return new Promise((resolve, reject) => {
      const socket = new Socket();
      const ms = Math.max(1, Math.min(CONNECT_TIMEOUT_MS, deadline - Date.now()));
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new FiscalError('#PRINTER_UNREACHABLE', { value: label }));
      }, ms);
      socket.once('error', () => {
        clearTimeout(timer);
        socket.destroy();
        reject(new FiscalError('#PRINTER_UNREACHABLE', { value: label }));
      });
      socket.connect(target.port, target.host, () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        socket.setNoDelay(true);
        resolve(new EscposConnection(socket, label, trace));
      });
    });
  }

  private unreachable(): FiscalError {
    return new FiscalError('#PRINTER_UNREACHABLE', { value: this.label });
  }

  /** Resolves when the bytes are handed to the operating system; fails at the deadline. */
  write(bytes: Buffer, deadline: number): Promise<void> {
    if (this.failure) return Promise.reject(this.unreachable());
    this.trace?.('out', bytes);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(this.unreachable()), Math.max(1, deadline - Date.now()));
      this.socket.write(bytes, (e) => {
        clearTimeout(timer);
        if (e) reject(this.unreachable());
        else resolve();
      });
    });
  }

  /** Exactly `n` bytes of the answer; #PRINTER_UNREACHABLE when they do not come before the deadline. */
  async read(n: number, deadline: number): Promise<Buffer> {
    for (;;) {
      if (this.received.length >= n) {
        const out = this.received.subarray(0, n);
        this.received = this.received.subarray(n);
        return out;
      }
      if (this.failure) throw this.unreachable();
      const ms = deadline - Date.now();
      if (ms <= 0) throw this.unreachable();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = undefined;
          resolve();
        };
      });
    }
  }

  /** Bytes up to and without `end` (at most `max`); undefined when they do not come before the deadline. */
  async readUntil(end: number, max: number, deadline: number): Promise<Buffer | undefined> {
    const out: number[] = [];
    try {
      while (out.length <= max) {
        const [b] = await this.read(1, deadline);
        if (b === end) return Buffer.from(out);
        out.push(b as number);
      }
    } catch {
      return undefined;
    }
    return undefined;
  }

  close(): void {
    this.socket.end();
    this.socket.destroySoon?.();
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  /**
   * Ends a job that failed: the connection is reset and what the operating system still holds for the device
   * is dropped. A graceful end would deliver it once the device answers again: a drawer pulse whose request
   * was answered as failed would open the drawer late, or twice after the POS retried.
   */
  abort(): void {
    if (typeof this.socket.resetAndDestroy === 'function' && !this.socket.destroyed) this.socket.resetAndDestroy();
    else this.socket.destroy();
  }
}
