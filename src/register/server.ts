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
import { openJournalStore } from './journal/open.js';
import { Profiles, envSettings } from './profile/profile.js';
import { type Register, Registers } from './registers.js';
import { loadOrCreateSigner } from './security/signer.js';
import { openTls, tlsServerOptions } from './security/tls-runtime.js';
import { Listener, listenTarget, receiveTimeoutsOf } from './listener.js';
import { type CloudOptions, cloudSettingsOf } from './security/tokens.js';
import { maxPosOf } from './register-limit.js';
import { countryModules, moduleFor } from './fiscal/registry.js';
import { startInterfaces } from './interfaces/start.js';
import { openServiceLog } from './logs/service-log.js';
import { ServiceControl, type Stopped, httpServerDisabled } from './maintenance/service-control.js';
import { Recorder, recorderOptionsOf } from './recorder/recorder.js';
import { EventReporter, eventReporterOptionsOf } from './recorder/events.js';
import { AuthorityDelivery, deliveryOptionsOf } from './fiscal/delivery/deliverer.js';
import { EinvoiceDelivery } from './einvoice/delivery.js';
import { journalStart } from './maintenance/start-record.js';

/**
 * Tells each register's country module that the service starts or stops (journaled where a law wants it);
 * a start is journaled in every register with a journal as START_EFR, unless its country journaled a start record itself.
 */
async function serviceEvent(ctx: ServiceContext, event: 'start' | 'stop', logger: pino.Logger | undefined): Promise<void> {
  // the registers side by side: their records go to the journal together (one commit for all), not one
  // commit after another before the service listens
  await Promise.all(ctx.registers.list().map((reg) => registerEvent(ctx, reg, event, logger)));
}

async function registerEvent(ctx: ServiceContext, reg: Register, event: 'start' | 'stop', logger: pino.Logger | undefined): Promise<void> {
  const m = moduleFor(reg.state.cfg);
  const logBefore = reg.state.last.log;
  // a register that has journaled nothing (made by a request refused before journaling, a restore that
  // failed) has no journal to mark the start in: it stays empty, and a backup can still be restored into it
  const empty = reg.state.sq === 0;
  if (m.serviceEvent) {
    try {
      await m.serviceEvent(ctx, reg, event);
    } catch (e) {
      logger?.error({ err: e, rn: reg.state.rn, event }, 'the country module could not journal the service event');
    }
  }
  if (event !== 'start' || empty || reg.state.last.log !== logBefore) return;
  try {
    await journalStart(ctx, reg);
  } catch (e) {
    // the service runs all the same (a full disk refuses transactions with #DISK_FULL); the log file has the start
    logger?.error({ err: e, rn: reg.state.rn }, 'the start could not be journaled');
  }
}

export interface ServeOptions {
  port: number;
  host?: string;
  dataDir: string;
  /** the journal on PostgreSQL: postgres://... (default EFR_DB of env); without it, SQLite in the data folder */
  db?: string;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** log to the data folder (default true) */
  log?: boolean;
  /** cloud mode: bearer tokens on every request (true, or token lifetimes); default EFR_CLOUD=true of env */
  cloud?: boolean | CloudOptions;
  /** runs under a service manager (`efr serve --service`, systemd): App_restartAt defaults to 03:00 */
  service?: boolean;
  /** called once the service closed for a restart (POST /service/restart, App_restartAt); the CLI exits there */
  onRestart?: (stopped: Stopped) => void;
}

export interface RunningService {
  app: FastifyInstance;
  ctx: ServiceContext;
  port: number;
  url: string;
  /** false with HttpServer_Disable: no HTTP listener */
  http: boolean;
  /** restart and stop (the CLI's signals go through it too) */
  control: ServiceControl;
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

/** @param db the journal's PostgreSQL URL (default EFR_DB of env); without one, SQLite in the data folder */
export async function openContext(dataDir: string, clock: Clock = systemClock, env: NodeJS.ProcessEnv = process.env, db: string | undefined = env.EFR_DB): Promise<ServiceContext> {
  mkdirSync(dataDir, { recursive: true });
  const store = await openJournalStore({ dataDir, ...(db ? { url: db } : {}) });
  const registers = new Registers(store);
  await registers.load();
  const settings = envSettings(env);
  const profiles = new Profiles(store, settings);
  await profiles.load(registers.list().map((r) => r.state.rn));
  const committer = new GroupCommitter(
    store,
    (rid) => registers.stateJson(rid),
    (rids) => registers.readBack(rids),
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
    ...(env.EFR_HOSTS ? { allowedHosts: env.EFR_HOSTS } : {}),
  };
}

export async function startService(options: ServeOptions): Promise<RunningService> {
  const cloud = cloudSettingsOf(options.cloud, options.env ?? process.env);
  const env = options.env ?? process.env;
  const ctx = await openContext(options.dataDir, options.clock, env, options.db ?? env.EFR_DB);
  if (cloud) ctx.cloud = cloud;
  ctx.registers.maxPos = maxPosOf(env, cloud !== undefined);
  let logger: pino.Logger | undefined;
  if (options.log !== false) {
    const logDir = join(options.dataDir, 'log');
    mkdirSync(logDir, { recursive: true });
    logger = openServiceLog(ctx, options.dataDir);
  }
  // HTTPS when a server certificate can be used, else plain HTTP (and a log line); client certificates
  const tls = openTls(options.dataDir, options.env ?? process.env, ctx.clock, logger);
  ctx.tls = tls;
  // restarts (POST /service/restart, App_restartAt) close the service like SIGTERM does, then exit
  const control = new ServiceControl({
    clock: ctx.clock,
    restartAt: () => ctx.profiles.settings('def').raw.get('app_restartat'),
    asService: options.service === true,
    ...(logger ? { log: logger } : {}),
    ...(options.onRestart ? { onRestart: options.onRestart } : {}),
  });
  ctx.control = control;
  // Croatia, Slovenia: receipts the tax authority has not answered yet are delivered later; ready
  // before the first request, so that every receipt is sent online and nothing sealed escapes the start scan
  const authority = new AuthorityDelivery(ctx, deliveryOptionsOf(env), logger);
  ctx.authority = authority;
  await authority.start();
  // e-invoices not answered by their delivery system yet are sent again; ready before the first request too
  const einvoice = new EinvoiceDelivery(ctx, deliveryOptionsOf(env), logger);
  ctx.einvoice = einvoice;
  await einvoice.start();
  const app = buildApp(ctx, logger);
  // journaled before the first request can be (France's JET: the start comes first)
  await serviceEvent(ctx, 'start', logger);
  await app.ready();
  // the listener is ours, not Fastify's, so that a new HttpServer_Port moves it without a restart
  const config = app.initialConfig;
  const listener = new Listener(
    (req, res) => app.routing(req, res),
    () => tlsServerOptions(tls),
    { keepAliveTimeout: config.keepAliveTimeout ?? 72_000, ...receiveTimeoutsOf(env), connectionTimeout: config.connectionTimeout ?? 0 },
    logger,
  );
  tls.clientTrust.onChange(() => listener.refreshTls());
  const listenOptions = { port: options.port, host: options.host };
  const http = !httpServerDisabled(ctx.profiles.settings('def').raw.get('httpserver_disable'));
  if (http) await listener.listen(listenTarget(ctx.profiles.settings('def'), listenOptions, logger));
  else logger?.warn({ type: 'LISTEN', disabled: true }, 'HttpServer_Disable: no HTTP listener; requests come through the file interface only (POST /service/restart and the pages are unreachable)');
  ctx.listenerSettingsChanged = () => {
    const target = listenTarget(ctx.profiles.settings('def'), listenOptions, logger);
    // after the answer to POST /profile: it is still in flight on the old server, which lets it finish
    setImmediate(() => void listener.move(target).catch((e: unknown) => logger?.error({ err: e }, 'the listener could not move')));
  };
  // the file interface (req/ and res/) and UDP (when UdpServer_Port is set), after the listener
  const interfaces = await startInterfaces(ctx, listenOptions, logger);
  logger?.info({ type: 'START_EFR', port: listener.port, https: tls.https, dataDir: options.dataDir, version: ctx.version }, 'register service started');
  // the countries' timed tasks (such as a TSE's self test and backups); unref'd: they never keep the process alive
  const failed = (e: unknown, rn: string): void => logger?.error({ err: e, rn }, 'a scheduled fiscal task failed; tried again in an hour');
  const timed = countryModules().filter((m) => m.scheduled !== undefined);
  // activation at the portal and the journal archive: its own timers, never in the request path
  const recorder = new Recorder(ctx, recorderOptionsOf(env), logger);
  ctx.recorder = recorder;
  await recorder.start();
  // events for the portal's notifications (TSE activated or failing, disk nearly full): a durable queue of its own
  const events = new EventReporter(ctx, eventReporterOptionsOf(env), logger);
  ctx.events = events;
  events.start();
  const daily = setInterval(() => {
    for (const m of timed) void m.scheduled?.(ctx, failed).catch((e: unknown) => logger?.error({ err: e, country: m.country }, 'scheduled task failed'));
  }, 30_000);
  daily.unref();
  let closed = false;
  const running: RunningService = {
    app,
    ctx,
    http,
    control,
    get port() {
      return listener.port;
    },
    get url() {
      return `${tls.https ? 'https' : 'http'}://127.0.0.1:${listener.port}`;
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(daily);
      control.dispose();
      await recorder.close();
      await events.close();
      await authority.close();
      await einvoice.close();
      await Promise.all(countryModules().map((m) => m.close?.()));
      // no new connections; the requests in flight are answered first
      await listener.close();
      await interfaces.close();
      await app.close();
      await serviceEvent(ctx, 'stop', logger);
      await ctx.committer.drain();
      await ctx.store.close();
      logger?.flush();
    },
  };
  control.attach(() => running.close());
  return running;
}
