/**
 * Croatia's predefined tax group letters (method 1 of the tax-group assignment): the standard VAT rate
 * (25 %), the reduced rates (13 % and 5 %) and 0 % (exempt). docs/countries/hr.md.
 */
import type { TaxLetters } from '../tax-letters.js';

export const HR_LETTERS: TaxLetters = { A: '25', B: '13', C: '5', D: '0' };
