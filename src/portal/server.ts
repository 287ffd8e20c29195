/**
 * The portal as a process: opens the store (SQLite in `<data>/portal/` or PostgreSQL by URL), migrates it,
 * listens on HTTP, runs the scheduler, and closes all of it again.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import pino from 'pino';
import { type Clock, systemClock } from '../shared/clock.js';
import { buildPortalApp } from './app.js';
import { TokenIssuer, loadTokenKey } from './auth/tokens.js';
import type { PortalContext } from './context.js';
import { createMailer } from './notifications/mailer.js';
import { DEFAULT_ESCALATE_AFTER_MS, DEFAULT_REOPEN_WITHIN_MS, DEFAULT_SILENT_AFTER_MS, Notifier } from './notifications/notifier.js';
import { type Scheduler, startScheduler } from './scheduler.js';
import { openPortalStore } from './store/open.js';
import type { PortalStore } from './store/types.js';

export const DEFAULT_PORTAL_PORT = 5619;

export interface PortalOptions {
  port?: number;
  host?: string;
  dataDir: string;
  /** postgres://... ; absent: SQLite in the data folder */
  dbUrl?: string;
  clock?: Clock;
  /** false: no log file (tests) */
  log?: boolean;
  schedulerIntervalMs?: number;
  /** a register not heard from for this long is REGISTER_SILENT (default 24 h; PORTAL_SILENT_AFTER) */
  silentAfterMs?: number;
  /** an open notification is escalated after this long (default 24 h; PORTAL_ESCALATE_AFTER) */
  escalateAfterMs?: number;
  /** a condition that comes back this soon after its notification was closed reopens it (default 10 min; 0 never; PORTAL_REOPEN_WITHIN) */
  reopenWithinMs?: number;
  /**
   * the client address of a request from X-Forwarded-For (Fastify's trustProxy): true trusts any proxy, a list
   * only these proxy addresses or CIDR ranges; default off (PORTAL_TRUST_PROXY)
   */
  trustProxy?: boolean | string[];
  /** notification mail by SMTP (smtp://127.0.0.1:25; PORTAL_SMTP_URL); absent: .eml files in <data>/portal/outbox/ */
  smtpUrl?: string;
  /** sender of notification mail (PORTAL_MAIL_FROM) */
  mailFrom?: string;
}

export interface RunningPortal {
  url: string;
  port: number;
  app: FastifyInstance;
  store: PortalStore;
  context: PortalContext;
  scheduler: Scheduler;
  close(): Promise<void>;
}

export async function startPortal(options: PortalOptions): Promise<RunningPortal> {
  const clock = options.clock ?? systemClock;
  mkdirSync(join(options.dataDir, 'portal'), { recursive: true });
  let pinoLogger: pino.Logger | undefined;
  if (options.log !== false) {
    mkdirSync(join(options.dataDir, 'portal', 'log'), { recursive: true });
    pinoLogger = pino({ level: 'info' }, pino.destination({ dest: join(options.dataDir, 'portal', 'log', 'portal.log'), mkdir: true, sync: false }));
  }
  const logger = pinoLogger as FastifyBaseLogger | undefined;
  const store = await openPortalStore({ dataDir: options.dataDir, ...(options.dbUrl ? { url: options.dbUrl } : {}) });
  let app: FastifyInstance | undefined;
  try {
    await store.migrate();
    const mailer = createMailer({ outboxDir: join(options.dataDir, 'portal', 'outbox'), ...(options.smtpUrl ? { smtpUrl: options.smtpUrl } : {}), ...(options.mailFrom ? { from: options.mailFrom } : {}) });
    const notifier = new Notifier({ silentAfterMs: options.silentAfterMs ?? DEFAULT_SILENT_AFTER_MS, escalateAfterMs: options.escalateAfterMs ?? DEFAULT_ESCALATE_AFTER_MS, reopenWithinMs: options.reopenWithinMs ?? DEFAULT_REOPEN_WITHIN_MS }, mailer, logger);
    const context: PortalContext = { store, clock, tokens: new TokenIssuer(loadTokenKey(options.dataDir), clock), dataDir: options.dataDir, notifier, ...(logger ? { log: logger } : {}) };
    app = await buildPortalApp(context, logger, { ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}) });
    await app.listen({ port: options.port ?? DEFAULT_PORTAL_PORT, host: options.host ?? '0.0.0.0' });
    const scheduler = startScheduler(context, options.schedulerIntervalMs, logger);
    const port = (app.server.address() as AddressInfo).port;
    const host = options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1';
    let closing: Promise<void> | undefined;
    const running = app;
    return {
      url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
      port,
      app: running,
      store,
      context,
      scheduler,
      close() {
        closing ??= (async () => {
          await scheduler.stop();
          await running.close();
          await notifier.close();
          await store.close();
          pinoLogger?.flush();
        })();
        return closing;
      },
    };
  } catch (e) {
    await app?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw e;
  }
}
