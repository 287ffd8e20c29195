/**
 * Chooses the fiscal module for a register from the country of its configuration. This is the one file
 * that names the countries: a country is its folder plus one line here, and everything else (routes,
 * backup, the server's timed tasks, `efr verify`, the pages) asks the module for what it declares.
 * The order is the order in which their export types are listed.
 */
import type { Obj } from '../codec/index.js';
import { countryOf } from './country.js';
import { GenericModule } from './generic/index.js';
import { AtModule } from './at/index.js';
import { DeModule } from './de/index.js';
import { PtModule } from './pt/index.js';
import { FrModule } from './fr/index.js';
import { EsModule } from './es/index.js';
import { HrModule } from './hr/index.js';
import { SiModule } from './si/index.js';
import { NoModule } from './no/index.js';
import { DkModule } from './dk/index.js';
import { SkModule } from './sk/index.js';
import { SeModule } from './se/index.js';
import type { FiscalModule } from './module.js';
import { GENERIC_LETTERS, type TaxLetters } from './tax-letters.js';

export { countryOf };

/** The countries with a module of their own, made at their first use. */
const COUNTRY_MODULES: Readonly<Record<string, () => FiscalModule>> = {
  AT: () => new AtModule(),
  DE: () => new DeModule(),
  PT: () => new PtModule(),
  FR: () => new FrModule(),
  ES: () => new EsModule(),
  HR: () => new HrModule(),
  SI: () => new SiModule(),
  NO: () => new NoModule(),
  DK: () => new DkModule(),
  SK: () => new SkModule(),
  SE: () => new SeModule(),
};

/**
 * Exports the specification lists for a country that has no module (or no such export) in this version,
 * by country and type: a register asking for one is told it is not available yet, not that its country
 * has no such export.
 */
const NOT_YET_AVAILABLE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
};

/** Why a country's export the specification lists is not available yet; undefined when it is not such a gap. */
export function exportNotYetAvailable(country: string, type: string): string | undefined {
  const gaps = Object.hasOwn(NOT_YET_AVAILABLE, country.toUpperCase()) ? NOT_YET_AVAILABLE[country.toUpperCase()] : undefined;
  return gaps && Object.hasOwn(gaps, type.toLowerCase()) ? gaps[type.toLowerCase()] : undefined;
}

const modules = new Map<string, FiscalModule>();

/** The module of a country code (any case); the generic module, with the generic tax letters, for one without a module. */
export function moduleForCountry(country: string): FiscalModule {
  const cc = country.toUpperCase();
  let m = modules.get(cc);
  if (!m) {
    const make = Object.hasOwn(COUNTRY_MODULES, cc) ? COUNTRY_MODULES[cc] : undefined;
    m = make ? make() : new GenericModule(cc, GENERIC_LETTERS);
    modules.set(cc, m);
  }
  return m;
}

export function moduleFor(cfg: Obj): FiscalModule {
  return moduleForCountry(countryOf(cfg));
}

/** Every country's own module, in the registry's order. */
export function countryModules(): FiscalModule[] {
  return Object.keys(COUNTRY_MODULES).map(moduleForCountry);
}

/** The predefined tax group letters of a country (the generic table for one without a module). */
export function taxLettersFor(country: string | undefined): TaxLetters {
  return moduleForCountry(country ?? '').letters;
}
