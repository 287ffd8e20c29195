/**
 * Predefined tax group letters (method 1 of the tax-group assignment), per country.
 * AT and DE are the letters the interface gives (docs/interface.md, "Tax groups"); countries without a table of their own use
 * the generic table, documented in docs/countries/generic.md.
 */
export type TaxLetters = Readonly<Record<string, string>>;

export const AT_LETTERS: TaxLetters = { A: '20', B: '10', C: '13', D: '0', E: '19', F: '7', G: '5' };
export const DE_LETTERS: TaxLetters = { A: '19', B: '7', C: '10.7', D: '5.5', E: '0', H: '16', I: '5', J: '9.5' };
/** France: normal, intermédiaire, réduit, particulier, exonéré (docs/countries/fr.md). */
export const FR_LETTERS: TaxLetters = { A: '20', B: '10', C: '5.5', D: '2.1', E: '0' };
/** Portugal: mainland normal, intermédia, reduzida, isento; Madeira (E-G) and the Azores (H-J) (docs/countries/pt.md). */
export const PT_LETTERS: TaxLetters = { A: '23', B: '13', C: '6', D: '0', E: '22', F: '12', G: '5', H: '16', I: '9', J: '4' };
/** Spain: general, reducido, superreducido, exento, and the temporary 5 % and 2 % (docs/countries/es.md). */
export const ES_LETTERS: TaxLetters = { A: '21', B: '10', C: '4', D: '0', E: '5', F: '2' };

/** Croatia: standard, reduced, lower reduced, zero (docs/countries/hr.md). */
export { HR_LETTERS } from './hr/letters.js';
/** Slovenia: general, reduced, lower reduced, zero (docs/countries/si.md). */
export { SI_LETTERS } from './si/letters.js';
import { HR_LETTERS } from './hr/letters.js';
import { SI_LETTERS } from './si/letters.js';
/** Norway: general, food, transport and accommodation, zero-rated (docs/countries/no.md). */
export { NO_LETTERS } from './no/letters.js';
import { NO_LETTERS } from './no/letters.js';
/** Denmark: moms and zero (docs/countries/dk.md). */
export { DK_LETTERS } from './dk/letters.js';
import { DK_LETTERS } from './dk/letters.js';

/** No country configured: the Austrian letters, the first country this service supports. */
export const GENERIC_LETTERS: TaxLetters = AT_LETTERS;

const BY_COUNTRY: Readonly<Record<string, TaxLetters>> = { AT: AT_LETTERS, DE: DE_LETTERS, FR: FR_LETTERS, PT: PT_LETTERS, ES: ES_LETTERS, HR: HR_LETTERS, SI: SI_LETTERS, NO: NO_LETTERS, DK: DK_LETTERS };

export function taxLettersFor(country: string | undefined): TaxLetters {
  return (country && BY_COUNTRY[country.toUpperCase()]) || GENERIC_LETTERS;
}
