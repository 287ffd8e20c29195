/**
 * What the French module keeps in the register state's country map (journaled with every record,
 * so crash-safe and rolled back with a failed record): the head of each signature chain, the
 * grand totals of the open day, month and fiscal year, the perpetual grand totals, duplicate
 * counters, the key id and the configuration fingerprint. All keys start with `fr|`.
 */
import type { Obj } from '../../codec/index.js';
import { type Dec, ZERO, abs, add, dec } from '../../../shared/money.js';
import type { FrKey } from './keys.js';
import { JET, type JetEvent } from './jet.js';
import { type ChainKind, GENESIS, type TaxTotals, addTaxes, amount, formatTaxes, parseTaxes, signedString } from './signed-string.js';

/** The periods with totals of their own: day, month, fiscal year. */
export type Period = 'J' | 'M' | 'A';

export interface Sealed {
  n: number;
  prev: string;
  payload: string;
  signature: string;
}

export class Ledger {
  constructor(
    private readonly country: Record<string, string>,
    private readonly rn: string,
  ) {}

  private get(k: string): string {
    return this.country[`fr|${k}`] ?? '';
  }

  private set(k: string, v: string): void {
    this.country[`fr|${k}`] = v;
  }

  /** The id of the key this register signs with, '' before its first record. */
  get keyId(): string {
    return this.get('key');
  }

  set keyId(v: string) {
    this.set('key', v);
  }

  get fingerprint(): string {
    return this.get('cfg');
  }

  set fingerprint(v: string) {
    this.set('cfg', v);
  }

  head(kind: ChainKind): { n: number; sig: string } {
    return { n: Number(this.get(`${kind}|n`) || '0'), sig: this.get(`${kind}|sig`) || GENESIS };
  }

  /** Signs the next record of a chain: its number, the fields, the previous signature. */
  seal(kind: ChainKind, fields: readonly string[], key: FrKey): Sealed {
    const { n: last, sig: prev } = this.head(kind);
    const n = last + 1;
    const payload = signedString(kind, n, fields, prev);
    const signature = key.sign(payload);
    this.set(`${kind}|n`, String(n));
    this.set(`${kind}|sig`, signature);
    return { n, prev, payload, signature };
  }

  /** A JET entry, signed into chain E: `FR1;E;n;RN;code;label;D;detail;prev`. */
  event(ev: JetEvent, d: string, key: FrKey): Obj {
    const { code, label } = JET[ev.kind];
    const s = this.seal('E', [this.rn, code, label, d, ev.detail], key);
    return { _: 'Event', N: String(s.n), Code: code, Label: label, D: d, Detail: ev.detail, Payload: s.payload, Signature: s.signature };
  }

  periodId(p: 'M' | 'A'): string {
    return this.get(`${p}|id`);
  }

  setPeriodId(p: 'M' | 'A', id: string): void {
    this.set(`${p}|id`, id);
  }

  totals(p: Period): { t: Dec; taxes: TaxTotals; count: number } {
    return { t: dec(this.get(`${p}|t`) || '0'), taxes: parseTaxes(this.get(`${p}|tax`)), count: Number(this.get(`${p}|cnt`) || '0') };
  }

  /** The perpetual grand total (sum of T) and the perpetual grand total of the absolute values. */
  perpetual(): { gt: Dec; gtAbs: Dec } {
    return { gt: dec(this.get('GT') || '0'), gtAbs: dec(this.get('GTA') || '0') };
  }

  /** A ticket or invoice enters the day, month, year and perpetual totals. */
  addTicket(t: Dec, taxes: TaxTotals): void {
    for (const p of ['J', 'M', 'A'] as const) {
      const cur = this.totals(p);
      this.set(`${p}|t`, amount(add(cur.t, t)));
      this.set(`${p}|tax`, formatTaxes(addTaxes(cur.taxes, taxes)));
      this.set(`${p}|cnt`, String(cur.count + 1));
    }
    const { gt, gtAbs } = this.perpetual();
    this.set('GT', amount(add(gt, t)));
    this.set('GTA', amount(add(gtAbs, abs(t))));
  }

  /** Closes a period: its totals start again from zero. */
  reset(p: Period): void {
    this.set(`${p}|t`, amount(ZERO));
    this.set(`${p}|tax`, '');
    this.set(`${p}|cnt`, '0');
  }
}
