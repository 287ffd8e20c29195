/** The parts of a journaled Slovak receipt ({_, SQ, TS, BC, ESR, Fis}) that its eKasa request is built from. */
import { type Obj, obj, str } from '../../codec/index.js';
import { type BusinessCase, classify } from '../../esr/business-case.js';

export { type Obj, obj, str };

/** The ESR, Fis and business case of a journaled receipt (the business case as classified from the ESR). */
export function classifyData(data: Obj): { esr: Obj; fis: Obj; bc: BusinessCase } {
  const esr = obj(data, 'ESR') ?? {};
  return { esr, fis: obj(data, 'Fis') ?? {}, bc: classify(esr) };
}
