/**
 * eKasa as the authority every Slovak receipt is reported to (fiscal/delivery/): the journaled receipt
 * becomes a signed RegisterReceiptRequest with the PKP and OKP computed when it was registered (never again:
 * a receipt sent after a certificate renewal keeps its codes), sent within Fiscal_Timeout (2 seconds unless
 * the profile says otherwise: the law's limit for the answer), and again later with a higher SendingCount.
 * The receipt id (UID) of the answer is added to the receipt (withId).
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';
import { classify } from '../../esr/business-case.js';
import type { AuthorityPort, DeliveryInput, DeliveryResult } from '../authority.js';
import { postSoap } from '../soap-client.js';
import { endpointOf } from './endpoint.js';
import { withUid } from './fis.js';
import { sellerIds, swIdOf } from './ids.js';
import { ekasaReceiptOf } from './receipt.js';
import { ekasaRequest, newMessageId, parseEkasaAnswer } from './request-xml.js';

/** eKasa's time limit for its answer (hraničná doba odozvy), the default of Fiscal_Timeout for Slovak registers. */
export const EKASA_RESPONSE_LIMIT_MS = 2000;
/** A receipt issued without its id is sent to eKasa within 48 hours. */
export const EKASA_LATER_LIMIT_MS = 48 * 3_600_000;

export class EkasaAuthority implements AuthorityPort {
  readonly name = 'eKasa';
  readonly idName = 'UID';
  readonly codeName = 'OKP';
  readonly defaultTimeoutMs = EKASA_RESPONSE_LIMIT_MS;
  readonly laterLimitMs = EKASA_LATER_LIMIT_MS;
  /** test and production authentication data name the register alike: Fiscal_Test alone chooses the system */
  readonly certificateNamesSystem = false;

  reports(data: Obj): boolean {
    return str(data, '_') === 'Tra' && str(obj(data, 'Fis') ?? {}, 'PKP') !== undefined;
  }

  async deliver(input: DeliveryInput): Promise<DeliveryResult> {
    let xml: string;
    const uuid = newMessageId();
    try {
      const esr = obj(input.data, 'ESR') ?? {};
      const fis = obj(input.data, 'Fis') ?? {};
      const bc = classify(esr);
      const pkp = str(fis, 'PKP');
      const okp = str(fis, 'OKP');
      const cashRegisterCode = str(fis, 'CashRegisterCode');
      if (!pkp || !okp || !cashRegisterCode) throw new FiscalError('#MISSING_FIELD', { field: 'Fis.PKP' });
      const ref = str(fis, 'RefReceiptId');
      const receipt = ekasaReceiptOf({ esr, bc, ...(ref ? { referenceReceiptId: ref } : {}) });
      xml = ekasaRequest(
        {
          header: { uuid, sentAt: input.now, sendingCount: input.later ? 2 : 1, swId: swIdOf(input.attributes) },
          seller: sellerIds(input.cfg),
          cashRegisterCode,
          receipt,
          created: (str(input.data, 'TS') ?? str(fis, 'D') ?? receipt.issued).slice(0, 19),
          pkp,
          okp,
        },
        input.certificate,
      );
    } catch (e) {
      // the journaled receipt cannot become an eKasa request: sending it again would not help
      if (e instanceof FiscalError) return { ok: false, code: e.code, message: e.message };
      throw e;
    }
    return parseEkasaAnswer(await postSoap(endpointOf(input.attributes), xml, input.certificate, input.signal, 'RegisterReceipt', 'eKasa'), uuid);
  }

  withId(fis: Obj, id: string): Obj {
    return withUid(fis, id);
  }
}
