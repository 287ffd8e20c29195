/**
 * Process concerns of the register service: open the data folder, the journal and the key,
 * listen, and close gracefully on SIGTERM/SIGINT after the last commit.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { type Clock, systemClock } from '../shared/clock.js';
import { buildApp } from './app.js';
import type { ServiceContext } from './context.js';
import { GroupCommitter } from './journal/group-commit.js';
import { SqliteJournalStore } from './journal/sqlite/sqlite-store.js';
import { Profiles, envSettings } from './profile/profile.js';
import { Registers } from './registers.js';
import { loadOrCreateSigner } from './security/signer.js';
import { runScheduled } from './fiscal/de/schedule.js';
import { moduleFor } from './fiscal/registry.js';

/** Tells each register's country module that the service starts or stops (journaled where a law wants it). */
async function serviceEvent(ctx: ServiceContext, event: 'start' | 'stop', logger: pino.Logger | undefined): Promise<void> {
  for (const reg of ctx.registers.list()) {
    const m = moduleFor(reg.state.cfg);
    if (!m.serviceEvent) continue;
    try {
      await m.serviceEvent(ctx, reg, event);
    } catch (e) {
      logger?.error({ err: e, rn: reg.state.rn, event }, 'the country module could not journal the service event');
    }
  }
}

export interface ServeOptions {
  port: number;
  host?: string;
  dataDir: string;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** log to the data folder (default true) */
  log?: boolean;
}

export interface RunningService {
  app: FastifyInstance;
  ctx: ServiceContext;
  port: number;
  url: string;
  close(): Promise<void>;
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export async function openContext(dataDir: string, clock: Clock = systemClock, env: NodeJS.ProcessEnv = process.env): Promise<ServiceContext> {
  mkdirSync(dataDir, { recursive: true });
  const store = new SqliteJournalStore(join(dataDir, 'journal', 'journal.sqlite'), { writerThread: true });
  const registers = new Registers(store);
  await registers.load();
  const settings = envSettings(env);
  const profiles = new Profiles(store, settings);
  await profiles.load(registers.list().map((r) => r.state.rn));
  const committer = new GroupCommitter(
    store,
    (rid) => registers.stateJson(rid),
    (rids) => registers.reload(rids),
  );
  return {
    dataDir,
    store,
    signer: loadOrCreateSigner(dataDir),
    clock,
    profiles,
    registers,
    committer,
    startedAt: Date.now(),
    version: packageVersion(),
    envSettings: settings,
  };
}

export async function startService(options: ServeOptions): Promise<RunningService> {
  const ctx = await openContext(options.dataDir, options.clock, options.env);
  let logger: pino.Logger | undefined;
  if (options.log !== false) {
    const logDir = join(options.dataDir, 'log');
    mkdirSync(logDir, { recursive: true });
    logger = pino({ level: 'info' }, pino.destination({ dest: join(logDir, 'efr.log'), sync: false, mkdir: true }));
  }
  const app = buildApp(ctx, logger);
  // journaled before the first request can be (France's JET: the start comes first)
  await serviceEvent(ctx, 'start', logger);
  await app.listen({ port: options.port, host: options.host ?? '0.0.0.0' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  logger?.info({ type: 'START_EFR', port, dataDir: options.dataDir, version: ctx.version }, 'register service started');
  // daily tasks (the German TSE's self test and backups); unref'd: they never keep the process alive
  const failed = (e: unknown, rn: string): void => logger?.error({ err: e, rn }, 'a scheduled TSE or backup task failed; tried again in an hour');
  const daily = setInterval(() => void runScheduled(ctx, failed).catch((e: unknown) => logger?.error({ err: e }, 'scheduled task failed')), 30_000);
  daily.unref();
  let closed = false;
  return {
    app,
    ctx,
    port,
    url: `http://127.0.0.1:${port}`,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(daily);
      await app.close();
      await serviceEvent(ctx, 'stop', logger);
      await ctx.committer.drain();
      await ctx.store.close();
      logger?.flush();
    },
  };
}
