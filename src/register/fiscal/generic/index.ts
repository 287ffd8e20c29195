/**
 * The generic fiscal module (no country configured, or a country without a module of its own):
 * the service allocates a sequential FN per register and signs a verification payload with the
 * instance key. The payload format is documented in docs/countries/generic.md.
 */
import { formatLocalDateTime } from '../../esr/datetime.js';
import { type Obj, str } from '../../codec/index.js';
import type { FiscalInput, FiscalModule } from '../module.js';
import { type TaxLetters } from '../tax-letters.js';

export const PAYLOAD_VERSION = 'EFR1';

/** The signed payload: EFR1;RN;SQ;FN;ESR.D;Fis.D;TL/TT/TN;T;previous record hash. */
export function genericPayload(parts: { rn: string; sq: number; fn: string; d: string; fisD: string; tl: string; tt: string; tn: string; t: string; prevHash: string }): string {
  return [PAYLOAD_VERSION, parts.rn, String(parts.sq), parts.fn, parts.d, parts.fisD, `${parts.tl}/${parts.tt}/${parts.tn}`, parts.t, parts.prevHash].join(';');
}

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
    state.fn += 1;
    const fn = String(state.fn);
    const payload = genericPayload({
      rn: input.rn, sq: input.sq, fn, d: str(esr, 'D') ?? '', fisD,
      tl: str(esr, 'TL') ?? '', tt: str(esr, 'TT') ?? '', tn: str(esr, 'TN') ?? '', t: str(esr, 'T') ?? '', prevHash: input.prevHash,
    });
    const signature = input.signer.sign(payload).toString('base64');
    const fis: Obj = { D: fisD, FN: fn, Payload: payload, Signature: signature, Code: `${payload};${signature}` };
    if (str(esr, 'TID')) fis.TID = str(esr, 'TID') as string;
    if (input.bc.flags.includes('test')) fis.Tag = [testTag()];
    return fis;
  }
}
