/**
 * The interface every country implements. The pipeline never names a country: it asks the
 * registry for the module of the register's configured country and calls it.
 */
import type { Obj } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import type { Register } from '../registers.js';
import type { BusinessCase } from '../esr/business-case.js';
import type { RegisterState, TransactionType } from '../journal/types.js';
import type { Signer } from '../security/signer.js';
import type { TaxLetters } from './tax-letters.js';
import type { AuthorityPort } from './authority.js';
import type { CountryFiles } from './country-files.js';
import type { CountryVerifier } from './verifiers.js';

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
  /** the journaled data ({TS, BC, ESR, Fis, ...}) of the original a void, return or reprint names, when found */
  original?: Obj;
  /** for a reprint (NFS=DUP): how often the original was reprinted before */
  reprints?: number;
}

/** What a module may need before the synchronous section (opening a signature device, reading keys). */
export interface PrepareInput {
  dataDir: string;
  state: RegisterState;
  attributes: ReadonlyMap<string, string>;
  /** the ESR as sent */
  esr: Obj;
}

/** One request of GET /export for a type the country module writes. */
export interface ExportRequest {
  ctx: ServiceContext;
  reg: Register;
  /** query parameters, names lower-cased */
  query: Readonly<Record<string, string>>;
  /** `from` and `till` (YYYY-MM-DD, inclusive), checked */
  period: { from?: string; till?: string };
  /** throws #FORBIDDEN unless the request comes from this machine or carries the profile password */
  requireLocalOrPassword(what: string): void;
}

/** The file an export answers with. */
export interface ExportFile {
  body: Buffer | NodeJS.ReadableStream;
  /** the name in Content-Disposition */
  file: string;
  contentType: string;
}

/** A service event a country may have to journal (France's technical events journal). */
export type ServiceEvent = 'start' | 'stop';

export interface FiscalModule {
  /** ISO country code, '' for the generic module */
  readonly country: string;
  readonly letters: TaxLetters;
  /** country rules on top of the generic validation; throws FiscalError */
  validate(esr: Obj, bc: BusinessCase): void;
  /** a country's own mark of a training transaction (France: FR_Trainer=1), flagged `test` like Test=1 */
  isTraining?(esr: Obj): boolean;
  /** a TN sent by the POS may not be used again in another year either (the default: once per year) */
  readonly uniqueTn?: boolean;
  /** signs, counts and chains; returns the Fis element of the answer */
  fiscalize(input: FiscalInput): Obj;
  /** asynchronous preparation before the synchronous section */
  prepare?(input: PrepareInput): Promise<void>;
  /** receipts the law wants registered before this one (start, monthly, yearly receipts): their ESRs */
  before?(input: PrepareInput & { d: string }): Obj[];
  /** the GET /export types of this country (lower-case type → writer); throws FiscalError (#NOT_FOUND when empty) */
  readonly exports?: Readonly<Record<string, (req: ExportRequest) => Promise<ExportFile>>>;
  /** called for each register of the country when the service has started and before it stops */
  serviceEvent?(ctx: ServiceContext, reg: Register, event: ServiceEvent): Promise<void>;
  /** the tax authority every receipt is reported to in real time (Croatia's CIS, Slovenia's FURS), after it is journaled */
  readonly authority?: AuthorityPort;
  /** called after the register's configuration (Cfg) or profile changed and the change is journaled */
  configChanged?(ctx: ServiceContext, reg: Register): Promise<void>;
  /**
   * the country's timed tasks (Germany's TSE self test and backups), called by the server every 30 seconds
   * for the whole service; `failed` reports a register whose task failed (the others go on). Returns how many ran.
   */
  scheduled?(ctx: ServiceContext, failed: (e: unknown, rn: string) => void): Promise<number>;
  /** releases what the country holds for the whole service (connections to its tax authority) when the service stops */
  close?(): Promise<void>;
  /** the files of the data folder a register of the country needs after a restore (its devices' keys, its counters) */
  readonly files?: CountryFiles;
  /** the offline verifier of the country's export (`efr verify --country <cc>`) */
  readonly verifier?: CountryVerifier;
}
