import { GENERIC_LETTERS, type TaxLetters } from '../tax-letters.js';

/** Austria: the interface's own table (docs/interface.md, "Tax groups"), which is also the default of a register without a country. */
export const AT_LETTERS: TaxLetters = GENERIC_LETTERS;
