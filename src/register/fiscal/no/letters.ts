/** Norway's VAT rates: general 25 %, food 15 %, transport, cinema and accommodation 12 %, zero-rated 0 % (docs/countries/no.md). */
import type { TaxLetters } from '../tax-letters.js';

export const NO_LETTERS: TaxLetters = { A: '25', B: '15', C: '12', D: '0' };
