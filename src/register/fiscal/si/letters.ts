/**
 * Slovenia's tax group letters (method 1 of the tax-group assignment): the general rate 22 %, the reduced
 * rates 9.5 % and 5 %, and 0 % (exempt supplies). The lead wires them into tax-letters.ts and the registry.
 */
import type { TaxLetters } from '../tax-letters.js';

export const SI_LETTERS: TaxLetters = { A: '22', B: '9.5', C: '5', D: '0' };
