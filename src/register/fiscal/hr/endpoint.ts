/**
 * The CIS address a register reports to: the test system with Fiscal_Test, else production; Fiscal_Url
 * overrides both (a proxy, or the fake CIS of the tests).
 */
import { reportsToTestSystem } from '../certificate-store.js';

export const CIS_TEST_URL = 'https://cistest.apis-it.hr:8449/FiskalizacijaServiceTest';
export const CIS_PRODUCTION_URL = 'https://cis.porezna-uprava.hr:8449/FiskalizacijaService';

/** The CIS endpoint of a register's attributes (names lower-cased). */
export function endpointOf(attributes: ReadonlyMap<string, string>): string {
  const url = attributes.get('fiscal_url')?.trim();
  if (url) return url;
  // the same rule as the certificate check (certificate-store.ts), so endpoint and certificate always agree
  return reportsToTestSystem(attributes) ? CIS_TEST_URL : CIS_PRODUCTION_URL;
}
