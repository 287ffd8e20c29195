import type { TaxLetters } from '../tax-letters.js';

/** Portugal: mainland normal, intermédia, reduzida, isento; Madeira (E-G) and the Azores (H-J) (docs/countries/pt.md). */
export const PT_LETTERS: TaxLetters = { A: '23', B: '13', C: '6', D: '0', E: '22', F: '12', G: '5', H: '16', I: '9', J: '4' };
