/**
 * When the service registers a Slovenian business premise with FURS: after the register's
 * configuration changed (POST /cfg, the base-data page, a profile change) and at every start, the premise
 * of `Cfg.Loc` is registered unless FURS already accepted exactly these premise data (the journal setting
 * `si:premise:<RN>:<TL>` holds their digest). Every attempt's outcome is journaled as a log record
 * `{Event: FiscalPremise, TL, Authority: FURS, Result, Code?, Message?}`; a failure is tried again at the next
 * change or start. Premise data that are incomplete (no land-register ids) are journaled as refused before
 * anything is sent.
 */
import { createHash } from 'node:crypto';
import type pino from 'pino';
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, isObj, obj, str } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { appendRecord } from '../../record-writer.js';
import type { Register } from '../../registers.js';
import { fiscalCertificate } from '../certificate-store.js';
import { fiscalTimeoutOf } from '../authority.js';
import { registerPremise } from './premise.js';

/** A premise registration waits this long at least (no POS waits for it). */
const PREMISE_TIMEOUT_MS = 15_000;

/** What FURS was told of a premise: its Loc, the company's tax number, the certificate, the system and the supplier. */
function digestOf(loc: Obj, cfg: Obj, serial: string, attributes: ReadonlyMap<string, string>): string {
  const taxId = str(obj(cfg, 'Cmp') ?? {}, 'TaxId') ?? '';
  return createHash('sha256').update(JSON.stringify([loc, taxId, serial, attributes.get('fiscal_softwaresupplier') ?? '', attributes.get('fiscal_url') ?? '', attributes.get('fiscal_test') ?? ''])).digest('hex');
}

/** The premises of the configuration: Cfg.Loc, or each entry of a Loc array. */
function locationsOf(cfg: Obj): Obj[] {
  const loc = cfg.Loc;
  if (Array.isArray(loc)) return loc.filter((l): l is Obj => isObj(l));
  return isObj(loc) ? [loc] : [];
}

async function journalOutcome(ctx: ServiceContext, reg: Register, tl: string, outcome: Obj): Promise<void> {
  const d = formatLocalDateTime(ctx.clock.now());
  await appendRecord(ctx, reg, { type: 'log', data: { TS: d, Event: 'FiscalPremise', TL: tl, Authority: 'FURS', ...outcome }, index: { d } }, undefined, true);
}

/** Registers every premise of the register's Cfg.Loc with FURS that is not registered with these data yet. */
export async function registerPremiseIfChanged(ctx: ServiceContext, reg: Register, log?: pino.Logger): Promise<void> {
  for (const loc of locationsOf(reg.state.cfg)) {
    const tl = str(loc, 'TL');
    if (tl) await registerOne(ctx, reg, loc, tl, log);
  }
}

async function registerOne(ctx: ServiceContext, reg: Register, loc: Obj, tl: string, log?: pino.Logger): Promise<void> {
  const rn = reg.state.rn;
  const attributes = ctx.profiles.settings(rn).raw;
  const certificate = fiscalCertificate(ctx.dataDir, rn);
  if (!certificate) return;
  const key = `si:premise:${rn}:${tl}`;
  const digest = digestOf(loc, reg.state.cfg, certificate.serial, attributes);
  if ((await ctx.store.getSetting(key)) === digest) return;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('no answer in time')), Math.max(PREMISE_TIMEOUT_MS, fiscalTimeoutOf(attributes)));
  try {
    const result = await registerPremise({ cfg: reg.state.cfg, attributes, tl, now: ctx.clock.now(), certificate, signal: controller.signal });
    if (result.ok) {
      await journalOutcome(ctx, reg, tl, { Result: 'registered' });
      await ctx.store.putSetting(key, digest);
      log?.info({ type: 'FISCAL', rn, tl }, `business premise ${tl} registered with FURS`);
    } else {
      await journalOutcome(ctx, reg, tl, { Result: 'refused', Code: result.code, Message: result.message });
      log?.warn({ type: 'FISCAL', rn, tl, code: result.code, message: result.message }, `FURS refused business premise ${tl}`);
    }
  } catch (e) {
    const message = e instanceof FiscalError ? e.message : e instanceof Error ? e.message : String(e);
    await journalOutcome(ctx, reg, tl, { Result: e instanceof FiscalError ? 'refused' : 'unreachable', Message: message });
    log?.warn({ type: 'FISCAL', rn, tl, err: message }, `business premise ${tl} not registered with FURS; tried again at the next change or start`);
  } finally {
    clearTimeout(timer);
  }
}
