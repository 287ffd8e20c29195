/** Chooses the fiscal module for a register from the country of its configuration. */
import type { Obj } from '../codec/index.js';
import { obj, str } from '../codec/index.js';
import { GenericModule } from './generic/index.js';
import { AtModule } from './at/index.js';
import { DeModule } from './de/index.js';
import type { FiscalModule } from './module.js';
import { taxLettersFor } from './tax-letters.js';

const modules = new Map<string, FiscalModule>();

export function countryOf(cfg: Obj): string {
  const cmp = obj(cfg, 'Cmp');
  return (cmp ? str(cmp, 'Ctry') ?? '' : '').toUpperCase();
}

export function moduleFor(cfg: Obj): FiscalModule {
  const country = countryOf(cfg);
  let m = modules.get(country);
  if (!m) {
    m = country === 'AT' ? new AtModule() : country === 'DE' ? new DeModule() : new GenericModule(country, taxLettersFor(country));
    modules.set(country, m);
  }
  return m;
}
