/**
 * The Croatian personal identification number (OIB): 11 digits, the last a check digit by ISO 7064
 * MOD 11,10. Used for the company (Cfg.Cmp.TaxId, optionally with the `HR` prefix) and the operator (ESR.OprTIN).
 */

/** Whether an OIB has 11 digits and a correct ISO 7064 MOD 11,10 check digit. */
export function isValidOib(oib: string): boolean {
  if (!/^\d{11}$/.test(oib)) return false;
  let a = 10;
  for (let i = 0; i < 10; i++) {
    a = (a + Number(oib[i])) % 10;
    if (a === 0) a = 10;
    a = (a * 2) % 11;
  }
  const check = (11 - a) % 10;
  return check === Number(oib[10]);
}

/** The OIB of a tax id as configured: without the `HR` VAT prefix and spaces; undefined when none is given. */
export function oibOf(taxId: string | undefined): string | undefined {
  const t = taxId?.replace(/\s+/g, '').replace(/^HR/i, '');
  return t ? t : undefined;
}
