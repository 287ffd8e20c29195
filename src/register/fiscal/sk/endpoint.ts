/**
 * The eKasa address a register reports to: the test system with Fiscal_Test, else production; Fiscal_Url
 * overrides both (a proxy, or the fake eKasa of the tests). The addresses are given to the register's
 * producer with the financial administration's integration documents; the ones here are the published
 * host names (docs/countries/sk.md, "Endpoints").
 */
import { reportsToTestSystem } from '../certificate-store.js';

export const EKASA_TEST_URL = 'https://ekasa-cert.financnasprava.sk/ekasa/1.0/ekasa-service';
export const EKASA_PRODUCTION_URL = 'https://ekasa.financnasprava.sk/ekasa/1.0/ekasa-service';

/** The eKasa endpoint of a register's attributes (names lower-cased). */
export function endpointOf(attributes: ReadonlyMap<string, string>): string {
  const url = attributes.get('fiscal_url')?.trim();
  if (url) return url;
  return reportsToTestSystem(attributes) ? EKASA_TEST_URL : EKASA_PRODUCTION_URL;
}
