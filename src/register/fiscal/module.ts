/**
 * The interface every country implements. The pipeline never names a country: it asks the
 * registry for the module of the register's configured country and calls it.
 */
import type { Obj } from '../codec/index.js';
import type { BusinessCase } from '../esr/business-case.js';
import type { RegisterState, TransactionType } from '../journal/types.js';
import type { Signer } from '../security/signer.js';
import type { TaxLetters } from './tax-letters.js';

export interface FiscalInput {
  rn: string;
  /** the SQ this record will have */
  sq: number;
  /** hex hash of the register's previous journal record */
  prevHash: string;
  now: Date;
  type: TransactionType;
  /** the normalized and validated ESR */
  esr: Obj;
  bc: BusinessCase;
  /** the register's state; the module advances its own counters (FN, TID, its country state) in it */
  state: RegisterState;
  signer: Signer;
  dataDir: string;
  /** the register's profile attributes, names lower-cased */
  attributes: ReadonlyMap<string, string>;
  /** the TN was numbered by the service (not sent by the POS) */
  tnGenerated: boolean;
}

/** What a module may need before the synchronous section (opening a signature device, reading keys). */
export interface PrepareInput {
  dataDir: string;
  state: RegisterState;
  attributes: ReadonlyMap<string, string>;
  /** the ESR as sent */
  esr: Obj;
}

export interface FiscalModule {
  /** ISO country code, '' for the generic module */
  readonly country: string;
  readonly letters: TaxLetters;
  /** country rules on top of the generic validation; throws FiscalError */
  validate(esr: Obj, bc: BusinessCase): void;
  /** a TN sent by the POS may not be used again in another year either (the default: once per year) */
  readonly uniqueTn?: boolean;
  /** signs, counts and chains; returns the Fis element of the answer */
  fiscalize(input: FiscalInput): Obj;
  /** asynchronous preparation before the synchronous section */
  prepare?(input: PrepareInput): Promise<void>;
  /** receipts the law wants registered before this one (start, monthly, yearly receipts): their ESRs */
  before?(input: PrepareInput & { d: string }): Obj[];
}
