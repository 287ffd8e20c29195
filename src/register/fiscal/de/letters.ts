import type { TaxLetters } from '../tax-letters.js';

/** Germany: the letters the interface gives (docs/interface.md, "Tax groups"). */
export const DE_LETTERS: TaxLetters = { A: '19', B: '7', C: '10.7', D: '5.5', E: '0', H: '16', I: '5', J: '9.5' };
