/**
 * Austria (RKSV). Every cash receipt is signed into the cashbox's chain: the machine-readable code
 * with the five amounts per tax rate, the encrypted turnover counter and the chain value, signed as a
 * compact JWS (ES256) by the selected signature device. Training receipts carry TRA, voids STO; a failed
 * device gives "Sicherheitseinrichtung ausgefallen". Start, monthly and yearly receipts are created
 * automatically, and so is the null receipt that ends a failure. See docs/countries/at.md.
 */
import { FiscalError } from '../../../shared/errors.js';
import { ZERO, dec, eq, fmt, parseDec } from '../../../shared/money.js';
import { type Obj, lines, str } from '../../codec/index.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { GenericModule, testTag } from '../generic/index.js';
import type { FiscalInput, FiscalModule, PrepareInput } from '../module.js';
import { AT_LETTERS } from '../tax-letters.js';
import { DeviceStore } from './devices.js';
import { RATES, type RateAmounts, STORNO_MARK, TRAINING_MARK, chainValue, compactJws, encryptTurnover, machineCode, ocrText, qrText, signingInput } from './rksv.js';

/** ZDA id of a signature device without a trust service provider's certificate. */
export const ZDA = 'AT0';
/** NFS of a null receipt sent by the POS. */
export const NULL_RECEIPT = 'NULL';

const stores = new Map<string, DeviceStore>();
export function deviceStore(dataDir: string): DeviceStore {
  let s = stores.get(dataDir);
  if (!s) {
    s = new DeviceStore(dataDir);
    stores.set(dataDir, s);
  }
  return s;
}

/** The cashbox id: the attribute Fiscal_CashboxId, else TL-TT of the configuration. */
export function cashboxIdOf(attributes: ReadonlyMap<string, string>, cfg: Obj): string {
  const explicit = attributes.get('fiscal_cashboxid');
  if (explicit) return explicit;
  const loc = cfg.Loc;
  const trm = cfg.Trm;
  const tl = loc && typeof loc === 'object' && !Array.isArray(loc) ? (str(loc, 'TL') ?? '') : '';
  const tt = trm && typeof trm === 'object' && !Array.isArray(trm) ? (str(trm, 'TT') ?? '1') : '1';
  return (tl ? `${tl}-${tt}` : tt).replace(/_/g, '/');
}

function companyOf(cfg: Obj): string {
  const cmp = cfg.Cmp;
  return cmp && typeof cmp === 'object' && !Array.isArray(cmp) ? (str(cmp, 'TaxId') ?? '') : '';
}

function deviceIndex(attributes: ReadonlyMap<string, string>): number {
  const v = attributes.get('sign_cfg');
  return v !== undefined && /^\d{1,2}$/.test(v) ? Number(v) : 0;
}

/** Which receipts enter the RKSV chain, and how. */
type Kind = 'sale' | 'training' | 'storno' | 'null';

function kindOf(esr: Obj, bc: BusinessCase, attributes: ReadonlyMap<string, string>): Kind | undefined {
  const nfs = str(esr, 'NFS')?.toUpperCase();
  if (nfs === NULL_RECEIPT) return 'null';
  // Fiscal_Test: the cashbox is processed as training
  if (bc.kind === 'training' || bc.flags.includes('test') || (attributes.has('fiscal_test') && bc.fiscal)) return 'training';
  if (!bc.fiscal) return undefined;
  if (bc.kind === 'void' || bc.kind === 'return') return 'storno';
  return 'sale';
}

/** Gross amounts per RKSV rate (cents), from the tax elements. */
function amountsOf(esr: Obj): RateAmounts {
  const sums: bigint[] = [0n, 0n, 0n, 0n, 0n];
  for (const tax of lines(esr, 'TaxA')) {
    if (str(tax, 'TTY')) continue;
    const prc = parseDec(str(tax, 'Prc') ?? '') ?? ZERO;
    // the code has five fields; other rates (F 7 %, G 5 % of the letter table) go to Besonders
    const found = RATES.findIndex((r) => eq(dec(r), prc));
    const i = found < 0 ? 4 : found;
    const amt = parseDec(str(tax, 'Amt') ?? '0') ?? ZERO;
    const cents = BigInt(fmt(amt, 2).replace('.', ''));
    sums[i] = (sums[i] as bigint) + cents;
  }
  return sums as unknown as RateAmounts;
}

const RATE_LABEL = ['Normal', 'Ermäßigt-1', 'Ermäßigt-2', 'Null', 'Besonders'];

export class AtModule implements FiscalModule {
  readonly country = 'AT';
  readonly letters = AT_LETTERS;
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
    await store.device(cashbox, companyOf(input.state.cfg), deviceIndex(input.attributes));
    store.aesKey(cashbox);
  }

  /** Start receipt before the first receipt of a cashbox (unless that is a null receipt itself), monthly and yearly receipts, the null receipt after a failure. */
  before(input: PrepareInput & { d: string }): Obj[] {
    const c = input.state.country;
    const isNull = str(input.esr, 'NFS')?.toUpperCase() === NULL_RECEIPT;
    const out: Obj[] = [];
    if (!c.started) {
      if (!isNull) out.push({ NFS: NULL_RECEIPT, Rsn: 'Startbeleg' });
      return out;
    }
    const ym = input.d.slice(0, 7);
    if (c.month && c.month !== ym) out.push({ NFS: NULL_RECEIPT, Rsn: c.month.endsWith('-12') ? 'Jahresbeleg' : 'Monatsbeleg' });
    if (c.failed === '1' && !isNull) {
      const store = deviceStore(input.dataDir);
      const device = store.opened(cashboxIdOf(input.attributes, input.state.cfg), deviceIndex(input.attributes));
      // the device works again: a null receipt ends the failure
      if (device && device.sign('probe') !== undefined) out.push({ NFS: NULL_RECEIPT, Rsn: 'Sammelbeleg' });
    }
    return out;
  }

  fiscalize(input: FiscalInput): Obj {
    const fis = this.generic.fiscalize(input);
    if (input.type !== 'Tra') return fis;
    const kind = kindOf(input.esr, input.bc, input.attributes);
    if (!kind) return fis;
    const { esr, state } = input;
    const c = state.country;
    const store = deviceStore(input.dataDir);
    const cashboxId = cashboxIdOf(input.attributes, state.cfg);
    const device = store.opened(cashboxId, deviceIndex(input.attributes));
    if (!device) throw new FiscalError('#INTERNAL');
    const receiptId = (str(esr, 'TN') ?? '').replace(/_/g, '/');
    const date = str(esr, 'D') ?? formatLocalDateTime(input.now);
    const amounts: RateAmounts = kind === 'null' ? [0n, 0n, 0n, 0n, 0n] : amountsOf(esr);
    let turnover = BigInt(c.turnover ?? '0');
    if (kind !== 'training') turnover += amounts.reduce((a, b) => a + b, 0n);
    const mark = kind === 'training' ? TRAINING_MARK : kind === 'storno' ? STORNO_MARK : encryptTurnover(store.aesKey(cashboxId), cashboxId, receiptId, turnover);
    const payload = machineCode({ zda: ZDA, cashboxId, receiptId, date, amounts, turnover: mark, certSerial: device.serial, chain: chainValue(c.lastJws || cashboxId) });
    const signature = device.sign(signingInput(payload));
    const jws = compactJws(payload, signature);
    c.turnover = turnover.toString();
    c.lastJws = jws;
    c.started = '1';
    c.month = date.slice(0, 7);
    c.failed = signature ? '' : '1';
    const tags: Obj[] = [
      { Name: 'CashboxId', Label: 'Kassen-ID:', Value: cashboxId },
      { Name: 'ReceiptId', Label: 'Beleg-Nr.:', Value: receiptId },
    ];
    amounts.forEach((a, i) => {
      if (a !== 0n) tags.push({ Name: `Amount${i}`, Label: `Betrag-Satz-${RATE_LABEL[i]}:`, Value: `${RATES[i]} % ${fmt({ v: a, s: 2 }, 2)}` });
    });
    if (!signature) tags.push({ Name: 'Failed', Label: '', Value: 'Sicherheitseinrichtung ausgefallen' });
    if (kind === 'training') tags.push(testTag());
    const out: Obj = {
      ...fis,
      Type: kind === 'null' ? (str(esr, 'Rsn') ?? 'Nullbeleg') : kind === 'training' ? 'Trainingsbeleg' : kind === 'storno' ? 'Stornobeleg' : 'Barumsatz',
      Payload: payload,
      Signature: jws.split('.')[2] ?? '',
      Code: qrText(jws),
      Tag: tags,
    };
    if (input.attributes.has('fis_ocr')) tags.push({ Name: 'OCR', Label: '', Value: ocrText(jws) });
    return out;
  }
}
