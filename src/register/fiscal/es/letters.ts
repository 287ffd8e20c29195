import type { TaxLetters } from '../tax-letters.js';

/** Spain: general, reducido, superreducido, exento, and the temporary 5 % and 2 % (docs/countries/es.md). */
export const ES_LETTERS: TaxLetters = { A: '21', B: '10', C: '4', D: '0', E: '5', F: '2' };
