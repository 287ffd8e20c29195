/** The state record of GET /state. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Obj } from './codec/index.js';
import { isObj, obj, str } from './codec/index.js';
import type { ServiceContext } from './context.js';
import { formatWithOffset } from './esr/datetime.js';
import { countryOf, moduleFor } from './fiscal/registry.js';
import { fiscalCertificate, fiscalCertificateView, fiscalCertificateWarnings } from './fiscal/certificate-store.js';
import { envSettingsView } from './profile/profile.js';

/** Bytes under a folder (the data folder is small in file count: journal, keys, logs). */
export function folderBytes(dir: string, depth = 0): number {
  let total = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    try {
      if (e.isDirectory()) total += depth < 8 ? folderBytes(p, depth + 1) : 0;
      else if (e.isFile()) total += statSync(p).size;
    } catch {
      // a file removed while we count
    }
  }
  return total;
}

/**
 * The state record. `visible` limits it to some registers (a cloud tenant sees only its own): their names,
 * their environment settings and authority queues; the instance's company and the recorder's warning, which
 * may name any register, only when `def` is visible.
 */
export function stateRecord(ctx: ServiceContext, visible: (rn: string) => boolean = () => true): Obj {
  const registers = ctx.registers.list().filter((r) => visible(r.state.rn));
  const instance = visible('def');
  const countries = [...new Set(registers.map((r) => countryOf(r.state.cfg)).filter(Boolean))];
  const def = instance ? ctx.registers.get('def') ?? registers[0] : registers[0];
  const company = def ? str(obj(def.state.cfg, 'Cmp') ?? {}, 'Nam') ?? '' : '';
  const quota = Number(ctx.profiles.settings('def').raw.get('diskquota') ?? '1024');
  const env: Obj = {};
  for (const [rn, settings] of ctx.envSettings) if (visible(rn)) env[rn] = envSettingsView(settings);
  const recorder = ctx.recorder?.status();
  return {
    pid: String(process.pid),
    arch: process.arch,
    // whole seconds: typed clients read an integer
    uptime: String(Math.floor((Date.now() - ctx.startedAt) / 1000)),
    name: 'efr',
    version: ctx.version,
    manifest: `efr ${ctx.version}; node ${process.version}; journal sqlite; key ${ctx.signer.keyId}`,
    Country: countries.join(' '),
    Online: recorder?.online ? 'true' : 'false',
    Recorder: recorder?.recorder ?? 'inactive',
    ...(recorder?.warning && instance ? { RecorderWarning: recorder.warning } : {}),
    RN: registers.map((r) => r.state.rn).join(' '),
    RecSent: String(recorder?.sent ?? 0),
    RecQueued: String(recorder?.queued ?? 0),
    RetryQueued: String(recorder?.retry ?? 0),
    TimeOffset: '0',
    D: formatWithOffset(ctx.clock.now()),
    DiskUsage: (folderBytes(ctx.dataDir) / 1_048_576).toFixed(3),
    DiskQuota: String(Number.isFinite(quota) ? quota : 1024),
    Company: company,
    EnvSettings: env,
    ...authorityState(ctx, visible, instance),
    ...einvoiceState(ctx, visible, instance),
  };
}

/**
 * Croatia, Slovenia: receipts waiting for the tax authority (FiscalQueued, and per register the
 * oldest and the last failure) and each reporting register's certificate with its expiry and warnings.
 */
function authorityState(ctx: ServiceContext, visible: (rn: string) => boolean, instance: boolean): Obj {
  const reporting = ctx.registers.list().filter((r) => visible(r.state.rn) && moduleFor(r.state.cfg).authority !== undefined);
  if (reporting.length === 0) return {};
  const queue = ctx.authority?.status();
  const certificates: Obj = {};
  const now = ctx.clock.now();
  for (const reg of reporting) {
    const rn = reg.state.rn;
    let cert;
    try {
      cert = fiscalCertificate(ctx.dataDir, rn);
    } catch (e) {
      certificates[rn] = { Warning: [e instanceof Error ? e.message : String(e)] };
      continue;
    }
    if (!cert) {
      certificates[rn] = { Warning: ['no fiscal certificate is installed: receipts are refused (POST /cer/fiscal)'] };
      continue;
    }
    const warnings = fiscalCertificateWarnings(cert, ctx.profiles.settings(rn).raw, now, moduleFor(reg.state.cfg).authority?.certificateNamesSystem !== false);
    certificates[rn] = { ...fiscalCertificateView(cert, now), ...(warnings.length ? { Warning: warnings } : {}) };
  }
  const queues = Object.fromEntries(Object.entries(queue?.registers ?? {}).filter(([rn]) => visible(rn)));
  const queued = instance ? queue?.queued ?? 0 : Object.values(queues).reduce((n: number, q) => n + (isObj(q) ? Number(q.Queued ?? 0) : 0), 0);
  return { FiscalQueued: String(queued), FiscalQueue: queues, FiscalCertificate: certificates };
}

/** E-invoices waiting for their delivery system (EinvoiceQueued, and per register the oldest and the last failure), once delivery runs. */
function einvoiceState(ctx: ServiceContext, visible: (rn: string) => boolean, instance: boolean): Obj {
  const queue = ctx.einvoice?.status();
  if (!queue) return {};
  const queues = Object.fromEntries(Object.entries(queue.registers).filter(([rn]) => visible(rn)));
  const queued = instance ? queue.queued : Object.values(queues).reduce((n: number, q) => n + (isObj(q) ? Number(q.Queued ?? 0) : 0), 0);
  return { EinvoiceQueued: String(queued), EinvoiceQueue: queues };
}

/** Typed JSON of the state record: numbers and booleans as JSON numbers and booleans. */
export const STATE_NUMBERS = new Set(['pid', 'uptime', 'RecSent', 'RecQueued', 'RetryQueued', 'FiscalQueued', 'EinvoiceQueued', 'TimeOffset', 'DiskUsage', 'DiskQuota']);
export const STATE_BOOLEANS = new Set(['Online']);
