import type { TaxLetters } from '../tax-letters.js';

/** France: normal, intermédiaire, réduit, particulier, exonéré (docs/countries/fr.md). */
export const FR_LETTERS: TaxLetters = { A: '20', B: '10', C: '5.5', D: '2.1', E: '0' };
