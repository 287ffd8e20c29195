/**
 * The generic fiscal module (no country configured, or a country without a module of its own):
 * the service allocates a sequential FN per register; the journal's ECDSA signature of the record
 * becomes Fis.Signature, its signing payload Fis.Payload (docs/countries/generic.md).
 */
import { formatLocalDateTime } from '../../esr/datetime.js';
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, str } from '../../codec/index.js';
import type { FiscalInput, FiscalModule } from '../module.js';
import { type TaxLetters } from '../tax-letters.js';

export function testTag(): Obj {
  return { Name: 'Test', Label: 'TEST', Value: 'Test transaction - not a fiscal receipt' };
}

export class GenericModule implements FiscalModule {
  constructor(
    readonly country: string,
    readonly letters: TaxLetters,
  ) {}

  validate(): void {
    // no rules beyond the generic ones
  }

  fiscalize(input: FiscalInput): Obj {
    const { esr, state } = input;
    const fisD = formatLocalDateTime(input.now);
    if (input.type === 'TraS') {
      state.tid += 1;
      return { TID: String(state.tid), StartD: str(esr, 'D') ?? fisD };
    }
    if (input.type === 'TraU' || input.type === 'TraV') {
      // update and abort of a started transaction: recorded, nothing to sign without a TSE
      const tid = str(esr, 'TID');
      if (!tid) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.TID' });
      return { TID: tid, D: fisD };
    }
    state.fn += 1;
    // No signature of its own: the journal's signature of this record (over its signing payload,
    // which names FN, D, TL/TT/TN, T and the chained record hash) is the receipt's Fis.Signature.
    const fis: Obj = { D: fisD, FN: String(state.fn) };
    if (str(esr, 'TID')) fis.TID = str(esr, 'TID') as string;
    if (input.bc.flags.includes('test')) fis.Tag = [testTag()];
    return fis;
  }
}
