/** Denmark's VAT: moms 25 %, and 0 % (exempt or zero-rated) (docs/countries/dk.md). */
import type { TaxLetters } from '../tax-letters.js';

export const DK_LETTERS: TaxLetters = { A: '25', D: '0' };
