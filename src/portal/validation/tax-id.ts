/**
 * Company tax ids (EU VAT identification numbers): the format of each EU member state by regular expression,
 * with or without the country prefix (Greece: EL), and the check digit of Austria (UID) and Germany
 * (USt-IdNr., ISO 7064 MOD 11,10). Ids of countries outside the EU are only held to the 4 to 40 characters.
 */
export interface TaxIdProblem {
  key: 'taxIdFormat' | 'taxIdCheckDigit' | 'taxIdCountry';
  params: Record<string, string>;
}

interface VatFormat {
  prefix: string;
  pattern: RegExp;
  expected: string;
  check?: (digits: string) => boolean;
}

const VAT: Record<string, VatFormat> = {
  AT: { prefix: 'AT', pattern: /^U\d{8}$/, expected: 'ATU + 8 digits', check: (s) => atCheck(s.slice(1)) },
  BE: { prefix: 'BE', pattern: /^[01]\d{9}$/, expected: 'BE + 10 digits starting with 0 or 1' },
  BG: { prefix: 'BG', pattern: /^\d{9,10}$/, expected: 'BG + 9 or 10 digits' },
  CY: { prefix: 'CY', pattern: /^\d{8}[A-Z]$/, expected: 'CY + 8 digits + 1 letter' },
  CZ: { prefix: 'CZ', pattern: /^\d{8,10}$/, expected: 'CZ + 8 to 10 digits' },
  DE: { prefix: 'DE', pattern: /^\d{9}$/, expected: 'DE + 9 digits', check: deCheck },
  DK: { prefix: 'DK', pattern: /^\d{8}$/, expected: 'DK + 8 digits' },
  EE: { prefix: 'EE', pattern: /^\d{9}$/, expected: 'EE + 9 digits' },
  GR: { prefix: 'EL', pattern: /^\d{9}$/, expected: 'EL + 9 digits' },
  ES: { prefix: 'ES', pattern: /^[A-Z0-9]\d{7}[A-Z0-9]$/, expected: 'ES + 9 characters (letter or digit, 7 digits, letter or digit)' },
  FI: { prefix: 'FI', pattern: /^\d{8}$/, expected: 'FI + 8 digits' },
  FR: { prefix: 'FR', pattern: /^[A-HJ-NP-Z0-9]{2}\d{9}$/, expected: 'FR + 2 characters + 9 digits' },
  HR: { prefix: 'HR', pattern: /^\d{11}$/, expected: 'HR + 11 digits' },
  HU: { prefix: 'HU', pattern: /^\d{8}$/, expected: 'HU + 8 digits' },
  IE: { prefix: 'IE', pattern: /^(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/, expected: 'IE + 8 or 9 characters' },
  IT: { prefix: 'IT', pattern: /^\d{11}$/, expected: 'IT + 11 digits' },
  LT: { prefix: 'LT', pattern: /^(\d{9}|\d{12})$/, expected: 'LT + 9 or 12 digits' },
  LU: { prefix: 'LU', pattern: /^\d{8}$/, expected: 'LU + 8 digits' },
  LV: { prefix: 'LV', pattern: /^\d{11}$/, expected: 'LV + 11 digits' },
  MT: { prefix: 'MT', pattern: /^\d{8}$/, expected: 'MT + 8 digits' },
  NL: { prefix: 'NL', pattern: /^\d{9}B\d{2}$/, expected: 'NL + 9 digits + B + 2 digits' },
  PL: { prefix: 'PL', pattern: /^\d{10}$/, expected: 'PL + 10 digits' },
  PT: { prefix: 'PT', pattern: /^\d{9}$/, expected: 'PT + 9 digits' },
  RO: { prefix: 'RO', pattern: /^[1-9]\d{1,9}$/, expected: 'RO + 2 to 10 digits' },
  SE: { prefix: 'SE', pattern: /^\d{10}01$/, expected: 'SE + 12 digits ending in 01' },
  SI: { prefix: 'SI', pattern: /^[1-9]\d{7}$/, expected: 'SI + 8 digits' },
  SK: { prefix: 'SK', pattern: /^[1-9]\d{9}$/, expected: 'SK + 10 digits' },
};

const PREFIXES = new Set(Object.values(VAT).map((f) => f.prefix));

/** Austrian UID: 8 digits, the last the check digit over the first seven. */
export function atCheck(digits: string): boolean {
  if (!/^\d{8}$/.test(digits)) return false;
  let s = 0;
  for (let i = 0; i < 7; i++) {
    const d = Number(digits[i]);
    if (i % 2 === 0) s += d;
    else {
      const x = d * 2;
      s += x > 9 ? x - 9 : x;
    }
  }
  return (10 - ((s + 4) % 10)) % 10 === Number(digits[7]);
}

/** German USt-IdNr.: 9 digits, ISO 7064 MOD 11,10 over the first eight. */
export function deCheck(digits: string): boolean {
  if (!/^\d{9}$/.test(digits)) return false;
  let product = 10;
  for (let i = 0; i < 8; i++) {
    let sum = (Number(digits[i]) + product) % 10;
    if (sum === 0) sum = 10;
    product = (2 * sum) % 11;
  }
  let check = 11 - product;
  if (check === 10) check = 0;
  return check === Number(digits[8]);
}

/** The tax id as compared: upper case, without spaces, dots and dashes. */
export function normalizeTaxId(taxId: string): string {
  return taxId.toUpperCase().replace(/[\s.\-/]/g, '');
}

/** Undefined when the tax id is acceptable for a company of that country. */
export function taxIdProblem(taxId: string, countryCode: string): TaxIdProblem | undefined {
  const format = VAT[countryCode.toUpperCase()];
  if (!format) return undefined;
  let id = normalizeTaxId(taxId);
  const head = id.slice(0, 2);
  if (head === format.prefix) id = id.slice(2);
  else if (PREFIXES.has(head) && !format.pattern.test(id)) return { key: 'taxIdCountry', params: { prefix: head, country: countryCode.toUpperCase() } };
  if (!format.pattern.test(id)) return { key: 'taxIdFormat', params: { country: countryCode.toUpperCase(), expected: format.expected } };
  if (format.check && !format.check(id)) return { key: 'taxIdCheckDigit', params: {} };
  return undefined;
}
