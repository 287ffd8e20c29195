/** Sweden's VAT rates (mervärdesskattelagen): general 25 %, food and hotels 12 %, books, transport and culture 6 %, exempt 0 % (docs/countries/se.md). */
import type { TaxLetters } from '../tax-letters.js';

export const SE_LETTERS: TaxLetters = { A: '25', B: '12', C: '6', D: '0' };
