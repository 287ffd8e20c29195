/**
 * Where an e-invoice goes (ESR.DD) and so which specification it follows. DD names a delivery system: `PEPPOL`
 * or a country code, with an optional suffix (`-TEST` selects the test system, eDoc_testNormalize). Germany is
 * XRechnung; the countries whose receivers are reached through Peppol, and PEPPOL itself, get Peppol BIS
 * Billing 3.0; the countries whose national systems are not built yet are refused before anything is journaled,
 * so that an invoice meant for them never registers OK without its e-invoice.
 */
import { FiscalError } from '../../shared/errors.js';

export type Syntax = 'peppol' | 'xrechnung';

export interface Destination {
  syntax: Syntax;
  /** the DD without its suffix, upper case: PEPPOL or a country code */
  system: string;
  /** the suffix selects the receiver's test system (`-TEST`, or an explicit one such as `-DEMO`) */
  test: boolean;
}

/** National e-invoicing systems the interface implies that this version does not produce yet, by DD country. */
const NOT_YET: Readonly<Record<string, string>> = {
  IT: 'FatturaPA through the Sistema di Interscambio (SdI)',
  PL: 'KSeF (FA(2) structured invoice)',
  FR: 'the French e-invoicing reform (Factur-X/UBL/CII through a PDP)',
  ES: 'FacturaE / the Spanish B2B e-invoice',
  PT: 'CIUS-PT (Portuguese e-invoice with ATCUD)',
  RO: 'RO e-Factura (CIUS-RO through SPV)',
  HU: 'the NAV Online Számla invoice data report',
  GR: 'myDATA',
  HR: 'e-Račun (Fiskalizacija 2.0)',
  SK: 'the Slovak e-invoice (IS EFA)',
  SI: 'e-SLOG',
};

const COUNTRY = /^[A-Z]{2}$/;

/** The destination of a DD value; FiscalError (RC BAD, naming ESR.DD) for one this version cannot produce. */
export function destinationOf(dd: string): Destination {
  const m = /^([A-Za-z]+)(?:-([A-Za-z0-9]+))?$/.exec(dd.trim());
  const system = (m?.[1] ?? '').toUpperCase();
  if (!m || !(system === 'PEPPOL' || COUNTRY.test(system))) {
    throw new FiscalError('#INVALID_VALUE', { field: 'ESR.DD', detail: `"${dd}" is not a delivery system for e-invoices: PEPPOL or a country code (ISO 3166 alpha-2), optionally with a suffix such as -TEST` });
  }
  const gap = Object.hasOwn(NOT_YET, system) ? NOT_YET[system] : undefined;
  if (gap) {
    throw new FiscalError('#INVALID_VALUE', { field: 'ESR.DD', detail: `e-invoices for ${system} (${gap}) are not supported yet in this version; the invoice was not registered` });
  }
  return { syntax: system === 'DE' ? 'xrechnung' : 'peppol', system, test: m[2] !== undefined };
}
