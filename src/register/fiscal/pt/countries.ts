/**
 * The customer's country as SAF-T PT (1.04_01, element Country) and the QR code (field C) accept it:
 * ISO 3166-1 alpha-2 codes of the schema's list. The VAT prefixes that are not ISO codes are mapped: EL
 * (Greece) to GR, XI (Northern Ireland) to GB, so a VAT number as printed on a European invoice works.
 */
const SCHEMA_COUNTRIES = new Set(
  ('AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
    'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
    'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW').split(' '),
);

/** VAT prefixes that are not the country's ISO code. */
const VAT_PREFIX: Readonly<Record<string, string>> = { EL: 'GR', XI: 'GB' };

/** The ISO code of a country as sent (or of a VAT prefix), or undefined when the schema does not know it. */
export function countryCode(text: string): string | undefined {
  const c = text.trim().toUpperCase();
  const iso = VAT_PREFIX[c] ?? c;
  return SCHEMA_COUNTRIES.has(iso) ? iso : undefined;
}
