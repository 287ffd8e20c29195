/**
 * Predefined tax group letters (method 1 of the tax-group assignment), per country.
 * AT and DE come from compat-notes.md; countries without a table of their own use
 * the generic table, documented in docs/countries/generic.md.
 */
export type TaxLetters = Readonly<Record<string, string>>;

export const AT_LETTERS: TaxLetters = { A: '20', B: '10', C: '13', D: '0', E: '19', F: '7', G: '5' };
export const DE_LETTERS: TaxLetters = { A: '19', B: '7', C: '10.7', D: '5.5', E: '0', H: '16', I: '5', J: '9.5' };

/** No country configured: the Austrian letters, the first country this service supports. */
export const GENERIC_LETTERS: TaxLetters = AT_LETTERS;

const BY_COUNTRY: Readonly<Record<string, TaxLetters>> = { AT: AT_LETTERS, DE: DE_LETTERS };

export function taxLettersFor(country: string | undefined): TaxLetters {
  return (country && BY_COUNTRY[country.toUpperCase()]) || GENERIC_LETTERS;
}
