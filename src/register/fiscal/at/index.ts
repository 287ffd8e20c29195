/**
 * Austria (RKSV). Every cash receipt is signed into its cashbox's chain: the machine-readable code with
 * the five amounts per tax rate, the encrypted turnover counter and the chain value, signed as a compact
 * JWS (ES256) by the selected signature device. Training receipts carry TRA, voids and returns STO; a
 * failed device gives "Sicherheitseinrichtung ausgefallen". Start, monthly, yearly receipts and the null
 * receipt that ends a failure are created automatically. See docs/countries/at.md.
 */
import { FiscalError } from '../../../shared/errors.js';
import { ZERO, add, dec, eq, fmt, parseDec } from '../../../shared/money.js';
import { type Obj, lines, str } from '../../codec/index.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import type { RegisterState } from '../../journal/types.js';
import { GenericModule, testTag } from '../generic/index.js';
import type { FiscalInput, FiscalModule, PrepareInput } from '../module.js';
import { AT_LETTERS } from './letters.js';
import { deviceStore } from './devices.js';
import { cashboxIdOf, companyOf } from './cashbox.js';
import { AT_FILES } from './files.js';
import { AT_EXPORTS } from './exports.js';
import { AT_VERIFIER } from './verifier.js';
import { RATES, type RateAmounts, STORNO_MARK, TRAINING_MARK, chainValue, compactJws, encryptTurnover, machineCode, ocrText, qrText, signingInput } from './rksv.js';

/** ZDA id of a closed system: the receipts name the device's key id, the DEP carries its public key. */
export const ZDA = 'AT0';
/** NFS of a null receipt sent by the POS. */
export const NULL_RECEIPT = 'NULL';


function deviceIndex(attributes: ReadonlyMap<string, string>): number {
  const v = attributes.get('sign_cfg');
  if (v === undefined) return 0;
  if (!/^\d{1,2}$/.test(v)) throw new FiscalError('#INVALID_VALUE', { field: 'Sign_Cfg', detail: `the number of the signature device (0, 1, ...), got "${v}"` });
  return Number(v);
}

/** The chain of one cashbox, kept in the register state's country map under the cashbox id. */
class Chain {
  constructor(
    private readonly state: RegisterState,
    private readonly id: string,
  ) {}
  private get(k: string): string {
    return this.state.country[`${this.id}|${k}`] ?? '';
  }
  private set(k: string, v: string): void {
    this.state.country[`${this.id}|${k}`] = v;
  }
  get started(): boolean {
    return this.get('started') === '1';
  }
  get turnover(): bigint {
    return BigInt(this.get('turnover') || '0');
  }
  get lastJws(): string {
    return this.get('lastJws');
  }
  /** the latest month (YYYY-MM) a receipt was made in */
  get month(): string {
    return this.get('month');
  }
  get failed(): boolean {
    return this.get('failed') === '1';
  }
  /** a yearly receipt that could not be signed and is due when the device works again */
  get yearDue(): boolean {
    return this.get('yearDue') === '1';
  }
  update(turnover: bigint, jws: string, month: string, failed: boolean, yearDue: boolean): void {
    this.set('started', '1');
    this.set('turnover', turnover.toString());
    this.set('lastJws', jws);
    if (month > this.month) this.set('month', month);
    this.set('failed', failed ? '1' : '');
    this.set('yearDue', yearDue ? '1' : '');
  }
}

/** Which receipts enter the RKSV chain, and how. */
type Kind = 'sale' | 'training' | 'storno' | 'null';

function kindOf(esr: Obj, bc: BusinessCase, attributes: ReadonlyMap<string, string>): Kind | undefined {
  if (str(esr, 'NFS')?.toUpperCase() === NULL_RECEIPT) return 'null';
  if (bc.kind === 'training') return 'training';
  if (!bc.fiscal) return undefined; // NF and other NFS documents are not cash receipts
  // Test=1, or Fiscal_Test for the whole cashbox: processed as training
  if (bc.flags.includes('test') || attributes.has('fiscal_test')) return 'training';
  if (bc.kind === 'void' || bc.kind === 'return') return 'storno';
  return 'sale';
}

/** Gross amounts per RKSV rate (cents): each rate's sum of the tax elements, rounded once. */
function amountsOf(esr: Obj): RateAmounts {
  const sums = [ZERO, ZERO, ZERO, ZERO, ZERO];
  for (const tax of lines(esr, 'TaxA')) {
    if (str(tax, 'TTY')) continue;
    const prc = parseDec(str(tax, 'Prc') ?? '') ?? ZERO;
    // the code has five fields; rates of the letter table outside them (F 7 %, G 5 %) go to Besonders
    const found = RATES.findIndex((r) => eq(dec(r), prc));
    const i = found < 0 ? 4 : found;
    sums[i] = add(sums[i] ?? ZERO, parseDec(str(tax, 'Amt') ?? '0') ?? ZERO);
  }
  return sums.map((s) => BigInt(fmt(s, 2).replace('.', ''))) as unknown as RateAmounts;
}

const RATE_LABEL = ['Normal', 'Ermäßigt-1', 'Ermäßigt-2', 'Null', 'Besonders'];
const RSN_START = 'Startbeleg';
const RSN_YEAR = 'Jahresbeleg';

function checkCashboxId(id: string): void {
  if (id === '' || id.includes('_') || [...id].length > 50) {
    throw new FiscalError('#INVALID_VALUE', { field: 'Fiscal_CashboxId', detail: `the cashbox id must have 1 to 50 characters and no "_", got "${id}"` });
  }
}

export class AtModule implements FiscalModule {
  readonly country = 'AT';
  readonly letters = AT_LETTERS;
  readonly exports = AT_EXPORTS;
  readonly files = AT_FILES;
  readonly verifier = AT_VERIFIER;
  /** the receipt number feeds the IV of the counter: a POS's TN may never repeat in a cashbox, across years too */
  readonly uniqueTn = true;
  private readonly generic = new GenericModule('AT', AT_LETTERS);

  validate(esr: Obj): void {
    for (const key of ['TL', 'TT', 'TN']) {
      if ((str(esr, key) ?? '').includes('_')) throw new FiscalError('#INVALID_VALUE', { field: `ESR.${key}`, detail: '"_" separates the fields of the RKSV code; use "/"' });
    }
    const tl = str(esr, 'TL') ?? '';
    const tt = str(esr, 'TT') ?? '';
    if (tl.length + tt.length > 49) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TL', detail: 'TL and TT together may have at most 49 characters' });
  }

  async prepare(input: PrepareInput): Promise<void> {
    const store = deviceStore(input.dataDir);
    const cashbox = cashboxIdOf(input.attributes, input.state.cfg);
    checkCashboxId(cashbox);
    await store.device(cashbox, companyOf(input.state.cfg), deviceIndex(input.attributes));
    store.aesKey(cashbox);
  }

  /** Start receipt (unless the first receipt is a null receipt itself), monthly or yearly receipt, the null receipt after a failure. */
  before(input: PrepareInput & { d: string }): Obj[] {
    const cashbox = cashboxIdOf(input.attributes, input.state.cfg);
    const chain = new Chain(input.state, cashbox);
    const isNull = str(input.esr, 'NFS')?.toUpperCase() === NULL_RECEIPT;
    if (!chain.started) return isNull ? [] : [{ NFS: NULL_RECEIPT, Rsn: RSN_START }];
    const out: Obj[] = [];
    const ym = input.d.slice(0, 7);
    if (chain.month && ym > chain.month) out.push({ NFS: NULL_RECEIPT, Rsn: ym.slice(0, 4) > chain.month.slice(0, 4) ? RSN_YEAR : 'Monatsbeleg' });
    if (chain.failed && !isNull && out.length === 0) {
      const device = deviceStore(input.dataDir).opened(cashbox, deviceIndex(input.attributes));
      // the device works again: a null receipt ends the failure (a yearly receipt still due is made now)
      if (device?.available()) out.push({ NFS: NULL_RECEIPT, Rsn: chain.yearDue ? RSN_YEAR : 'Sammelbeleg' });
    }
    return out;
  }

  fiscalize(input: FiscalInput): Obj {
    const fis = this.generic.fiscalize(input);
    if (input.type !== 'Tra') return fis;
    const kind = kindOf(input.esr, input.bc, input.attributes);
    if (!kind) return fis;
    const { esr, state } = input;
    const store = deviceStore(input.dataDir);
    const cashboxId = cashboxIdOf(input.attributes, state.cfg);
    const chain = new Chain(state, cashboxId);
    const device = store.opened(cashboxId, deviceIndex(input.attributes));
    if (!device) throw new FiscalError('#INTERNAL');
    // the receipt number: the POS's TN, else the service's FN (never repeats; TN restarts each year)
    const receiptId = (input.tnGenerated ? str(fis, 'FN') : str(esr, 'TN'))?.replace(/_/g, '/') ?? '';
    const date = str(esr, 'D') ?? formatLocalDateTime(input.now);
    const amounts: RateAmounts = kind === 'null' ? [0n, 0n, 0n, 0n, 0n] : amountsOf(esr);
    let turnover = chain.turnover;
    if (kind !== 'training') turnover += amounts.reduce((a, b) => a + b, 0n);
    const mark = kind === 'training' ? TRAINING_MARK : kind === 'storno' ? STORNO_MARK : encryptTurnover(store.aesKey(cashboxId), cashboxId, receiptId, turnover);
    const payload = machineCode({ zda: ZDA, cashboxId, receiptId, date, amounts, turnover: mark, certSerial: device.keyId, chain: chainValue(chain.lastJws || cashboxId) });
    const signature = device.sign(signingInput(payload));
    const rsn = str(esr, 'Rsn');
    // a cashbox cannot start without its device, and a yearly receipt must be signed: it stays due
    if (!signature && kind === 'null' && rsn === RSN_START) throw new FiscalError('#DEVICE_FAILED', { value: device.keyId });
    const jws = compactJws(payload, signature);
    const yearDue = kind === 'null' && rsn === RSN_YEAR ? !signature : chain.yearDue;
    chain.update(turnover, jws, date.slice(0, 7), !signature, yearDue);
    const tags: Obj[] = [
      { Name: 'CashboxId', Label: 'Kassen-ID:', Value: cashboxId },
      { Name: 'ReceiptId', Label: 'Beleg-Nr.:', Value: receiptId },
    ];
    amounts.forEach((a, i) => {
      if (a !== 0n) tags.push({ Name: `Amount${i}`, Label: `Betrag-Satz-${RATE_LABEL[i]}:`, Value: `${RATES[i]} % ${fmt({ v: a, s: 2 }, 2)}` });
    });
    if (!signature) tags.push({ Name: 'Failed', Label: '', Value: 'Sicherheitseinrichtung ausgefallen' });
    if (kind === 'training') tags.push(testTag());
    if (input.attributes.has('fis_ocr')) tags.push({ Name: 'OCR', Label: '', Value: ocrText(jws) });
    return {
      ...fis,
      Type: kind === 'null' ? (rsn ?? 'Nullbeleg') : kind === 'training' ? 'Trainingsbeleg' : kind === 'storno' ? 'Stornobeleg' : 'Barumsatz',
      Payload: payload,
      Signature: jws.split('.')[2] ?? '',
      Code: qrText(jws),
      Tag: tags,
    };
  }
}
