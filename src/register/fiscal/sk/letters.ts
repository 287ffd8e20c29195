/**
 * Slovakia's predefined tax group letters (method 1 of the tax-group assignment): the basic VAT rate (23 %
 * since 1 January 2025), the reduced rates (19 % and 5 %) and 0 % (exempt, e.g. returnable packaging).
 * docs/countries/sk.md.
 */
import type { TaxLetters } from '../tax-letters.js';

export const SK_LETTERS: TaxLetters = { A: '23', B: '19', C: '5', D: '0' };
