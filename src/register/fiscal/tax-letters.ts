/**
 * Predefined tax group letters (method 1 of the tax-group assignment). Each country module declares its
 * own table (`FiscalModule.letters`, in its folder's letters.ts); a register of a country without a module
 * uses the generic table, documented in docs/countries/generic.md.
 */
export type TaxLetters = Readonly<Record<string, string>>;

/** The interface's table for the first country this service supported (Austria): the default without a country. */
export const GENERIC_LETTERS: TaxLetters = { A: '20', B: '10', C: '13', D: '0', E: '19', F: '7', G: '5' };
