/**
 * The JET's entries: signed into chain E, carried by the record that caused them (Fis.FR_JET of a
 * closing, of the first record after a configuration change or a failed signature) or by a `log`
 * record of their own (service start and stop, exports). docs/countries/fr.md, "JET".
 */
import { createHash } from 'node:crypto';
import { FiscalError } from '../../../shared/errors.js';
import { canonicalJson } from '../../../shared/canonical.js';
import type { Obj } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import type { Register } from '../../registers.js';
import { appendRecord } from '../../record-writer.js';
import type { JetEvent } from './jet.js';
import { type FrKey, loadKey } from './keys.js';
import { Ledger } from './ledger.js';

/** Errors met outside a record (a key that cannot be loaded), journaled in the JET with the next record. */
const pendingErrors = new Map<string, JetEvent[]>();
const pendingKey = (dataDir: string, rn: string): string => `${dataDir}|${rn}`;

export function notePending(dataDir: string, rn: string, ev: JetEvent): void {
  const list = pendingErrors.get(pendingKey(dataDir, rn)) ?? [];
  if (list.length < 20) list.push(ev);
  pendingErrors.set(pendingKey(dataDir, rn), list);
}

/** The events noted so far, left in place: a record that fails after reading them must not lose them. */
export function peekPending(dataDir: string, rn: string): JetEvent[] {
  return [...(pendingErrors.get(pendingKey(dataDir, rn)) ?? [])];
}

/** Removes the first `count` noted events, once they are signed into a record. */
export function dropPending(dataDir: string, rn: string, count: number): void {
  const k = pendingKey(dataDir, rn);
  const rest = (pendingErrors.get(k) ?? []).slice(count);
  if (rest.length) pendingErrors.set(k, rest);
  else pendingErrors.delete(k);
}

/** The JET error of a signature that could not be made: `what` names what was refused. */
export function noteSignatureError(dataDir: string, rn: string, what: string, e: unknown): void {
  notePending(dataDir, rn, { kind: 'ERROR', detail: `signature impossible (${what}): ${e instanceof FiscalError ? e.code : 'clé illisible'}` });
}

/** What of the configuration the JET watches: the Cfg and the French attributes. */
export function fingerprintOf(cfg: Obj, attributes: ReadonlyMap<string, string>): string {
  const cfgHash = createHash('sha256').update(canonicalJson(cfg)).digest('hex').slice(0, 16);
  const attrs = ['fiscal_yearend', 'fis_certification', 'fis_sec', 'fiscal_rules'].map((k) => `${k}=${attributes.get(k) ?? ''}`);
  return [`cfg=${cfgHash}`, ...attrs].join(' ');
}

/** Signs the JET events of a record, after a configuration check; the entries of Fis.FR_JET. */
export function signEvents(ledger: Ledger, key: FrKey, events: JetEvent[], d: string, cfg: Obj, attributes: ReadonlyMap<string, string>): Obj[] {
  const all: JetEvent[] = [];
  const fp = fingerprintOf(cfg, attributes);
  if (!ledger.keyId) {
    all.push({ kind: 'INIT', detail: `clé ${key.keyId}; ${fp}` });
    ledger.keyId = key.keyId;
  } else if (ledger.fingerprint !== fp) {
    all.push({ kind: 'CONFIG', detail: fp });
  }
  ledger.fingerprint = fp;
  all.push(...events);
  return all.map((ev) => ledger.event(ev, d, key));
}

/**
 * Journals JET events as a `log` record of their own (service start and stop, exports), signed into
 * chain E; the events noted since the last record and a configuration change come first.
 */
export async function journalEvents(ctx: ServiceContext, reg: Register, events: JetEvent[]): Promise<void> {
  const rn = reg.state.rn;
  const what = `JET ${events.map((e) => e.kind).join(' ') || 'CONFIG'}`;
  let key: FrKey;
  try {
    key = await loadKey(ctx.dataDir, rn, new Ledger(reg.state.country, rn).keyId === '');
  } catch (e) {
    if (e instanceof FiscalError && e.code === '#DEVICE_FAILED') noteSignatureError(ctx.dataDir, rn, what, e);
    throw e;
  }
  const d = formatLocalDateTime(ctx.clock.now());
  const attributes = ctx.profiles.settings(rn).raw;
  await appendRecord(ctx, reg, { type: 'log', data: { TS: d, Event: `NF525 JET ${events.map((e) => e.kind).join(' ')}` }, index: { d } }, (): Obj => {
    const ledger = new Ledger(reg.state.country, rn);
    if (ledger.keyId !== '' && ledger.keyId !== key.keyId) {
      const e = new FiscalError('#DEVICE_FAILED', { value: key.file });
      noteSignatureError(ctx.dataDir, rn, `${what}, clé ${key.keyId} au lieu de ${ledger.keyId}`, e);
      throw e;
    }
    const pending = peekPending(ctx.dataDir, rn);
    const fis = { D: d, Type: 'JET', ID: key.keyId, FR_JET: signEvents(ledger, key, [...pending, ...events], d, reg.state.cfg, attributes) };
    // signed: they leave the waiting list only now
    dropPending(ctx.dataDir, rn, pending.length);
    return fis;
  });
}
