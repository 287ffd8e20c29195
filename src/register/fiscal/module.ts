/**
 * The interface every country implements. The pipeline never names a country: it asks the
 * registry for the module of the register's configured country and calls it.
 */
import type { Obj } from '../codec/index.js';
import type { BusinessCase } from '../esr/business-case.js';
import type { RegisterState } from '../journal/types.js';
import type { Signer } from '../security/signer.js';
import type { TaxLetters } from './tax-letters.js';

export interface FiscalInput {
  rn: string;
  /** the SQ this record will have */
  sq: number;
  /** hex hash of the register's previous journal record */
  prevHash: string;
  now: Date;
  type: 'Tra' | 'TraS';
  /** the normalized and validated ESR */
  esr: Obj;
  bc: BusinessCase;
  /** the register's state; the module advances its own counters (FN, TID) in it */
  state: RegisterState;
  signer: Signer;
}

export interface FiscalModule {
  /** ISO country code, '' for the generic module */
  readonly country: string;
  readonly letters: TaxLetters;
  /** country rules on top of the generic validation; throws FiscalError */
  validate(esr: Obj, bc: BusinessCase): void;
  /** signs, counts and chains; returns the Fis element of the answer */
  fiscalize(input: FiscalInput): Obj;
}
