/**
 * The register's base data (Cfg: Cmp, Loc, Trm, Dev[], DE_Agentur[], Doc). A change is journaled
 * as a Cfg record; sending identical values again has no effect.
 */
import { canonicalJson } from '../shared/canonical.js';
import { FiscalError } from '../shared/errors.js';
import { type Obj, type Value, isObj, str } from './codec/index.js';
import type { ServiceContext } from './context.js';
import { formatLocalDateTime } from './esr/datetime.js';
import { appendRecord } from './record-writer.js';
import { moduleFor } from './fiscal/registry.js';
import type { Register } from './registers.js';
import type { Sealed } from './record-answer.js';

const OBJECT_PARTS = ['Cmp', 'Loc', 'Trm', 'Doc'];
const ARRAY_PARTS = ['Dev', 'DE_Agentur'];

const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  Cmp: ['Nam', 'Adr', 'Zip', 'City', 'Ctry', 'TaxId'],
  Loc: ['TL', 'Nam', 'Adr', 'Zip', 'City', 'Ctry'],
  Trm: ['TT', 'SW', 'HW', 'Serial'],
};

function invalid(field: string, detail: string): FiscalError {
  return new FiscalError('#INVALID_VALUE', { field, detail });
}

function checkPart(name: string, part: Obj, warnings: string[]): void {
  for (const [k, v] of Object.entries(part)) {
    if (typeof v !== 'string') throw new FiscalError('#INVALID_TYPE', { field: `Cfg.${name}.${k}`, expected: 'text', value: '{...}' });
  }
  const label = str(part, 'label');
  if (label !== undefined && [...label].length > 10) throw invalid(`Cfg.${name}.label`, `at most 10 characters, got ${[...label].length} ("${label}")`);
  const ctry = str(part, 'Ctry');
  if (ctry !== undefined && !/^[A-Z]{2}$/.test(ctry)) throw invalid(`Cfg.${name}.Ctry`, `an ISO 3166 alpha-2 country code such as AT, got "${ctry}"`);
  if (name === 'Trm') {
    const lang = str(part, 'Lang');
    if (lang !== undefined && !['en', 'de', 'fr', 'nl'].includes(lang)) throw invalid('Cfg.Trm.Lang', `one of en, de, fr, nl, got "${lang}"`);
  }
  if (name === 'Cmp') {
    const vr = str(part, 'VatRegime');
    if (vr !== undefined && !['GENERAL', 'SIMPLE', 'REDE'].includes(vr)) throw invalid('Cfg.Cmp.VatRegime', `one of GENERAL, SIMPLE, REDE, got "${vr}"`);
    const vop = str(part, 'VATonPayment');
    if (vop !== undefined && vop !== '0' && vop !== '1') throw invalid('Cfg.Cmp.VATonPayment', `0 or 1, got "${vop}"`);
    const org = str(part, 'Org');
    if (org !== undefined && !/^\d{6}-\d{4}$/.test(org)) throw invalid('Cfg.Cmp.Org', `the format NNNNNN-NNNN, got "${org}"`);
  }
  if (name === 'Doc') {
    const pp = str(part, 'PaymentPeriod');
    if (pp !== undefined && !/^\d+$/.test(pp)) throw invalid('Cfg.Doc.PaymentPeriod', `a whole number of days, got "${pp}"`);
  }
  for (const r of REQUIRED[name] ?? []) {
    if (!str(part, r)) warnings.push(`Cfg.${name}.${r} is missing; it is required for fiscal receipts`);
  }
}

/** The configuration after applying a POSTed Cfg: each part sent replaces that part. */
export function mergeCfg(current: Obj, sent: Obj): { cfg: Obj; warnings: string[] } {
  const cfg: Obj = structuredClone(current);
  const warnings: string[] = [];
  for (const [key, v] of Object.entries(sent)) {
    if (OBJECT_PARTS.includes(key)) {
      if (!isObj(v)) throw new FiscalError('#INVALID_TYPE', { field: `Cfg.${key}`, expected: 'an object', value: String(v) });
      checkPart(key, v, warnings);
      cfg[key] = v;
    } else if (ARRAY_PARTS.includes(key)) {
      const arr: Value[] = Array.isArray(v) ? v : [v];
      arr.forEach((item, i) => {
        if (!isObj(item)) throw new FiscalError('#INVALID_TYPE', { field: `Cfg.${key}[${i}]`, expected: 'an object', value: String(item) });
        checkPart(`${key}[${i}]`, item, warnings);
      });
      cfg[key] = arr;
    } else {
      throw invalid(`Cfg.${key}`, 'unknown part; expected Cmp, Loc, Trm, Dev, DE_Agentur or Doc');
    }
  }
  return { cfg, warnings };
}

export interface CfgOutcome {
  sq: number;
  warnings: string[];
  /** the new Cfg record; absent when the configuration was identical */
  sealed?: Sealed;
}

export async function saveCfg(ctx: ServiceContext, reg: Register, sent: Obj): Promise<CfgOutcome> {
  const { cfg, warnings } = mergeCfg(reg.state.cfg, sent);
  if (canonicalJson(cfg) === canonicalJson(reg.state.cfg)) {
    const sq = reg.state.last.Cfg ?? 0;
    await reg.pending.get(sq); // the identical configuration may still be being committed
    return { sq, warnings: [...warnings, 'identical configuration: nothing recorded'] };
  }
  const d = formatLocalDateTime(ctx.clock.now());
  const sealed = await appendRecord(ctx, reg, {
    type: 'Cfg',
    data: { TS: d, Cfg: cfg },
    index: { d },
    apply: (s) => {
      s.cfg = cfg;
    },
  });
  await configChanged(ctx, reg);
  return { sq: Number(str(sealed.data, 'SQ')), warnings, sealed };
}

/**
 * Tells the register's country module that its configuration or profile changed (France journals it in
 * its JET). The change itself is already journaled; a module that cannot record it now notices it with
 * the register's next record, so its failure does not fail the request.
 */
export async function configChanged(ctx: ServiceContext, reg: Register): Promise<void> {
  await moduleFor(reg.state.cfg).configChanged?.(ctx, reg).catch(() => undefined);
  // Croatia, Slovenia: receipts the tax authority refused are sent again once the set-up changed
  await ctx.authority?.retryRefused(reg).catch(() => 0);
}
