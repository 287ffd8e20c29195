/**
 * POST /peri/drawer/wait: polls the printer's status (DLE EOT) until the drawer is closed. The HTTP/1.1
 * request gets an interim `102 Processing` after 30 s and every 30 s after (the spec's limit), so a POS
 * waiting for the cashier is not cut off; after `Drawer_Timeout` seconds (ours, default 300) it answers
 * #DRAWER_TIMEOUT (RC NO). A drawer whose state the printer does not report counts as closed.
 */
import type { FastifyReply } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { PrinterDriver } from './driver.js';
import { STATUS_TIMEOUT_MS } from './network-printer.js';

/** The timings; tests shorten them. */
export const drawerWaitTiming = { pollMs: 250, interimMs: 30_000 };
export const DEFAULT_DRAWER_TIMEOUT_S = 300;
export const MAX_DRAWER_TIMEOUT_S = 3600;

/** Drawer_Timeout in seconds (1 to 3600), else the default. */
export function drawerTimeoutOf(value: string | undefined): number {
  const v = value?.trim() ?? '';
  return /^\d{1,4}$/.test(v) && Number(v) >= 1 && Number(v) <= MAX_DRAWER_TIMEOUT_S ? Number(v) : DEFAULT_DRAWER_TIMEOUT_S;
}

/**
 * Resolves when the drawer is closed; throws #DRAWER_TIMEOUT, a printer error, or stops when the client went
 * away. Each poll's time counts from the moment it has the printer: a printout running meanwhile (the
 * printer is busy) means waiting on, up to Drawer_Timeout, not a printer error.
 */
export async function waitForDrawerClosed(printer: PrinterDriver, res: FastifyReply, rn: string, timeoutS: number): Promise<void> {
  const raw = res.raw;
  const interim = raw.req.httpVersionMajor === 1 && raw.req.httpVersionMinor >= 1;
  const timer = interim
    ? setInterval(() => {
        if (!raw.headersSent && !raw.writableEnded && !raw.destroyed) raw.writeProcessing();
      }, drawerWaitTiming.interimMs)
    : undefined;
  const end = Date.now() + timeoutS * 1000;
  try {
    for (;;) {
      if (raw.destroyed) return;
      let status;
      try {
        status = await printer.status({ ms: STATUS_TIMEOUT_MS + 2000, deadline: end });
      } catch (e) {
        // the printer was busy until the end: the drawer was not seen closed in time
        if (Date.now() >= end) throw new FiscalError('#DRAWER_TIMEOUT', { rn, seconds: timeoutS });
        throw e;
      }
      if (status.drawerOpen !== true) return;
      if (Date.now() >= end) throw new FiscalError('#DRAWER_TIMEOUT', { rn, seconds: timeoutS });
      await new Promise((resolve) => setTimeout(resolve, drawerWaitTiming.pollMs));
    }
  } finally {
    if (timer) clearInterval(timer);
  }
}
