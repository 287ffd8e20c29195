/**
 * The service log: pino JSON lines in `<data>/log/efr.log`, rotated by size, with the instance's
 * (`def`) Log_debug, Log_length and Log_remove applied. The settings are read again whenever the profile
 * changed (POST /profile): no restart is needed. Times come from the service's clock.
 *
 * No business data: nothing logs a request body or query, and as a second line of defence the fields
 * that carry transaction content (ESR, positions, payments, customer, amounts, descriptions) and
 * passwords are replaced by `[removed]` wherever a log call passes them (top level or one level down).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import type { ServiceContext } from '../context.js';
import type { Settings } from '../profile/attributes.js';
import { LogFile } from './log-file.js';
import { cleanLine } from './log-line.js';
import { type LogSettings, logSettingsOf } from './log-settings.js';

/** Field names that carry transaction content or secrets; never written to the log. */
export const BUSINESS_FIELDS: readonly string[] = [
  'ESR', 'SESR', 'Tra', 'TraS', 'TraC', 'body', 'payload', 'PosA', 'PayA', 'TaxA', 'Pos', 'Pay', 'Ctm', 'Dsc', 'Amt', 'T', 'Pri', 'Qty',
  'password', 'Password', 'passphrase', 'authorization',
];

const REDACT_PATHS = [...BUSINESS_FIELDS.flatMap((f) => [f, `*.${f}`]), 'req.headers.authorization', 'headers.authorization'];

/** An error as the log shows it: its type, code, message and stack, not its other properties (which may carry values). */
export function errorForLog(e: unknown): Record<string, unknown> {
  if (!(e instanceof Error)) return { message: String(e).slice(0, 500) };
  const out: Record<string, unknown> = { type: e.constructor?.name ?? e.name, message: e.message.slice(0, 500) };
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  if (e.stack) out.stack = e.stack.slice(0, 4000);
  return out;
}

export interface ServiceLog {
  logger: pino.Logger;
  file: LogFile;
  /** the settings in force; read again when the profile changed */
  settings(): LogSettings;
  /** applies a changed profile now (the level too) */
  refresh(): void;
}

const open = new WeakMap<ServiceContext, ServiceLog>();

/** The service log of a running service, when it logs (tests may run without). */
export function serviceLogOf(ctx: ServiceContext): ServiceLog | undefined {
  return open.get(ctx);
}

export function logDirOf(dataDir: string): string {
  return join(dataDir, 'log');
}

/** Makes the logger of a service: `<data>/log/efr.log` with the settings of the `def` profile. */
export function openServiceLog(ctx: ServiceContext, dataDir: string = ctx.dataDir): pino.Logger {
  const dir = logDirOf(dataDir);
  mkdirSync(dir, { recursive: true });
  let source: Settings | undefined;
  let current: LogSettings = logSettingsOf(new Map());
  let logger: pino.Logger | undefined;
  let warnedRemove = false;
  const settings = (): LogSettings => {
    const s = ctx.profiles.settings('def');
    if (s !== source) {
      source = s;
      current = logSettingsOf(s.raw);
      if (logger && logger.level !== current.level) logger.level = current.level;
      const remove = s.raw.get('log_remove');
      if (remove !== undefined && remove !== 'true' && remove !== '' && !current.remove && !warnedRemove) {
        warnedRemove = true;
        // written after this line: an environment setting (never checked by POST /profile) is no expression
        setImmediate(() => logger?.warn({ type: 'LOG' }, 'Log_remove is not a valid regular expression: nothing is removed from the log'));
      }
    }
    return current;
  };
  const file = new LogFile(dir, () => settings());
  const stream: pino.DestinationStream = {
    write(line: string): void {
      file.write(cleanLine(line, settings()));
    },
  };
  logger = pino(
    {
      level: settings().level,
      timestamp: () => `,"time":${ctx.clock.now().getTime()}`,
      redact: { paths: REDACT_PATHS, censor: '[removed]' },
      serializers: { err: errorForLog, error: errorForLog },
    },
    stream,
  );
  const service: ServiceLog = {
    logger,
    file,
    settings,
    refresh: () => void settings(),
  };
  open.set(ctx, service);
  return logger;
}
