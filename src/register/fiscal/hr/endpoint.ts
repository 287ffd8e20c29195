/**
 * The CIS address a register reports to: the test system with Fiscal_Test, else production; Fiscal_Url
 * overrides both (a proxy, or the fake CIS of the tests).
 */

export const CIS_TEST_URL = 'https://cistest.apis-it.hr:8449/FiskalizacijaServiceTest';
export const CIS_PRODUCTION_URL = 'https://cis.porezna-uprava.hr:8449/FiskalizacijaService';

/** Whether the profile attribute Fiscal_Test selects the authority's test system. */
export function isFiscalTest(attributes: ReadonlyMap<string, string>): boolean {
  const v = attributes.get('fiscal_test')?.trim().toLowerCase();
  return v !== undefined && v !== '' && v !== '0' && v !== 'false' && v !== 'no';
}

/** The CIS endpoint of a register's attributes (names lower-cased). */
export function endpointOf(attributes: ReadonlyMap<string, string>): string {
  const url = attributes.get('fiscal_url')?.trim();
  if (url) return url;
  return isFiscalTest(attributes) ? CIS_TEST_URL : CIS_PRODUCTION_URL;
}
