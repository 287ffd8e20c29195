/**
 * Slovenian tax numbers (davčna številka): 8 digits, the first not 0. The VAT id is the same number with the
 * prefix SI; FURS's messages carry the bare number (an integer in the JSON). Used for the company's
 * Cfg.Cmp.TaxId and the operator's ESR.OprTIN.
 */

/** The 8-digit tax number of "SI12345678", "SI 12345678" or "12345678"; undefined for anything else. */
export function slovenianTaxNumber(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const m = /^(?:SI)?\s*([1-9]\d{7})$/i.exec(text.trim());
  return m ? m[1] : undefined;
}

/**
 * The operator of an invoice as FURS wants it: a Slovenian tax number (OperatorTaxNumber), or a foreign
 * operator (ForeignOperator true) when ESR.OprTIN is another country's tax id (a prefix other than SI, or
 * any other form than 8 digits).
 */
export function operatorOf(oprTin: string): { taxNumber: string } | { foreign: true } {
  const own = slovenianTaxNumber(oprTin);
  return own ? { taxNumber: own } : { foreign: true };
}
