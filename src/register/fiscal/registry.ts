/** Chooses the fiscal module for a register from the country of its configuration. */
import type { Obj } from '../codec/index.js';
import { obj, str } from '../codec/index.js';
import { GenericModule } from './generic/index.js';
import { AtModule } from './at/index.js';
import { DeModule } from './de/index.js';
import { EsModule } from './es/index.js';
import { FrModule } from './fr/index.js';
import { PtModule } from './pt/index.js';
import { HrModule } from './hr/index.js';
import { SiModule } from './si/index.js';
import { NoModule } from './no/index.js';
import { DkModule } from './dk/index.js';
import type { FiscalModule } from './module.js';
import { taxLettersFor } from './tax-letters.js';

const modules = new Map<string, FiscalModule>();

/** The countries with a module of their own. */
const COUNTRY_MODULES: Readonly<Record<string, () => FiscalModule>> = {
  AT: () => new AtModule(),
  DE: () => new DeModule(),
  FR: () => new FrModule(),
  PT: () => new PtModule(),
  ES: () => new EsModule(),
  HR: () => new HrModule(),
  SI: () => new SiModule(),
  NO: () => new NoModule(),
  DK: () => new DkModule(),
};

export function countryOf(cfg: Obj): string {
  const cmp = obj(cfg, 'Cmp');
  return (cmp ? str(cmp, 'Ctry') ?? '' : '').toUpperCase();
}

export function moduleFor(cfg: Obj): FiscalModule {
  const country = countryOf(cfg);
  let m = modules.get(country);
  if (!m) {
    const make = COUNTRY_MODULES[country];
    m = make ? make() : new GenericModule(country, taxLettersFor(country));
    modules.set(country, m);
  }
  return m;
}
