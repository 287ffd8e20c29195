/** Code lists the ESR → EN 16931 mapping needs: EAS schemes of VAT numbers, currencies, units, payment means. */

/** EAS code (CEF code list) of a VAT number by its country prefix: the Peppol participant scheme of that VAT id. */
const VAT_EAS: Readonly<Record<string, string>> = {
  AT: '9914', BE: '9925', BG: '9926', CH: '9927', CY: '9928', CZ: '9929', DE: '9930', EE: '9931', ES: '9920',
  FR: '9957', GB: '9932', GR: '9933', EL: '9933', HR: '9934', IE: '9935', LI: '9936', LT: '9937', LU: '9938',
  LV: '9939', MC: '9940', ME: '9941', MK: '9942', MT: '9943', NL: '9944', PL: '9945', PT: '9946', RO: '9947',
  RS: '9948', SI: '9949', SK: '9950', SM: '9951', TR: '9952', VA: '9953', IT: '0211', HU: '9910',
};

export function vatEas(vatId: string): string | undefined {
  const prefix = vatId.slice(0, 2).toUpperCase();
  return Object.hasOwn(VAT_EAS, prefix) ? VAT_EAS[prefix] : undefined;
}

/**
 * The Peppol participant id a VAT number gives: the scheme of VAT numbers of its country, or where Peppol
 * addresses a country's companies by another register, that register's number read from the VAT id
 * (Norway's organisation number 0192, Denmark's CVR 0184, Sweden's organisation number 0007, Finland 0213).
 */
export function endpointOfVat(vatId: string): { scheme: string; id: string } | undefined {
  const v = vatId.replace(/\s+/g, '').toUpperCase();
  const no = /^NO([0-9]{9})MVA$/.exec(v);
  if (no) return { scheme: '0192', id: no[1] as string };
  if (/^DK[0-9]{8}$/.test(v)) return { scheme: '0184', id: v };
  const se = /^SE([0-9]{10})01$/.exec(v);
  if (se) return { scheme: '0007', id: se[1] as string };
  if (/^FI[0-9]{8}$/.test(v)) return { scheme: '0213', id: v };
  const eas = vatEas(v);
  return eas ? { scheme: eas, id: v } : undefined;
}

/** A VAT identifier carries its ISO 3166 country prefix (BR-CO-9; Greece writes EL). */
export function hasCountryPrefix(vatId: string): boolean {
  return /^[A-Z]{2}[0-9A-Za-z+*.]{2,}$/.test(vatId);
}

/** The invoice currency (BT-5) of a register's country: the ESR amounts are in local currency. */
const CURRENCY: Readonly<Record<string, string>> = {
  BG: 'BGN', CH: 'CHF', CZ: 'CZK', DK: 'DKK', GB: 'GBP', HU: 'HUF', IS: 'ISK', LI: 'CHF', NO: 'NOK', PL: 'PLN', RO: 'RON', SE: 'SEK', RS: 'RSD', TR: 'TRY',
};

export function currencyOf(country: string): string {
  return Object.hasOwn(CURRENCY, country) ? (CURRENCY[country] as string) : 'EUR';
}

/** UN/ECE Recommendation 20 unit (BT-130) of an ESR Pos.QtyU; a piece (or no unit) is C62 "one". */
const UNITS: Readonly<Record<string, string>> = {
  kg: 'KGM', g: 'GRM', t: 'TNE', l: 'LTR', ml: 'MLT', cl: 'CLT', m: 'MTR', cm: 'CMT', km: 'KMT', m2: 'MTK', m3: 'MTQ',
  h: 'HUR', min: 'MIN', d: 'DAY', day: 'DAY', pc: 'C62', pcs: 'C62', stk: 'C62', 'stück': 'C62', piece: 'C62',
};

/** Recommendation 20 codes a POS may send as they are. */
const REC20 = new Set(['C62', 'H87', 'EA', 'KGM', 'GRM', 'MGM', 'TNE', 'LTR', 'MLT', 'CLT', 'DLT', 'MTR', 'CMT', 'MMT', 'KMT', 'MTK', 'MTQ',
  'HUR', 'MIN', 'SEC', 'DAY', 'WEE', 'MON', 'ANN', 'KWH', 'KWT', 'SET', 'PR', 'XPK', 'XBX', 'XBO', 'XCT', 'XPA', 'XRO', 'XSA', 'NAR', 'LS', 'E48']);

/** A unit the table does not know is one (C62): the quantity still counts what was sold. */
export function unitOf(qtyU: string | undefined): string {
  if (qtyU === undefined || qtyU.trim() === '') return 'C62';
  const u = qtyU.trim();
  const key = u.toLowerCase().replace(/\.$/, '');
  if (Object.hasOwn(UNITS, key)) return UNITS[key] as string;
  return REC20.has(u.toUpperCase()) ? u.toUpperCase() : 'C62';
}
