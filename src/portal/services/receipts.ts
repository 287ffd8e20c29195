/**
 * Digital receipts, the portal's side: a document handle (DH, 21 characters A-Z, 2-7: the
 * 16-character register handle the instance activated the register with, then the 5-character transaction handle
 * of the receipt) names an archived receipt; it is drawn with the register service's own receipt view and default
 * template (through its rendering entry, src/register/render/index.ts), from the archived journal record and the
 * Cfg in force when it was made.
 *
 * - Only receipts (Tra records) have a page; any other record, an unknown register handle or transaction handle:
 *   none (the route answers 404).
 * - The Cfg is the last Cfg record archived before the receipt's SQ, as the service's /render does it; when the
 *   archive holds none (cleaned, or the register's base data were never journaled) the company's name, address
 *   and TaxId from the portal stand in.
 * - Fis as the service answered it: where the journal signature is the receipt's signature, Fis.Code is made from
 *   the archived signature (`sig`); without one the stored Fis is shown as it is.
 * - 5 characters of transaction handle leave about 33 million values: two receipts of one register may share one.
 *   All of them are drawn, one after the other, in SQ order (the customer's own is among them).
 * - Receipts of deactivated companies and registers are still shown: customers keep their receipts.
 */
import type { Lang } from '../../shared/errors.js';
import { asLang } from '../../shared/errors.js';
import { type Obj, isObj, obj, str } from '../../register/codec/index.js';
import { type ReceiptRecord, REGISTER_HANDLE_LENGTH, TRANSACTION_HANDLE_LENGTH, answerOf } from '../../register/render/index.js';
import type { PortalContext } from '../context.js';
import type { ArchivedRecord } from '../store/types.js';
import { cfgPartOf } from './recorder.js';

/** A whole document handle: the only form /r/{DH} looks up. */
export const DOCUMENT_HANDLE_PATTERN = new RegExp(`^[A-Z2-7]{${REGISTER_HANDLE_LENGTH + TRANSACTION_HANDLE_LENGTH}}$`);

/** One receipt ready to draw: the record as /tra shows it, the Cfg in force, the language. */
export interface ArchivedReceipt {
  registerNumber: string;
  sq: number;
  record: ReceiptRecord;
  cfg: Obj;
  lang: Lang;
}

export function isDocumentHandle(dh: string): boolean {
  return DOCUMENT_HANDLE_PATTERN.test(dh);
}

/**
 * The record's data as the register service's /tra shows it: the stored fields with Fis as answered (the
 * journal signature as Fis.Signature and in Fis.Code where the country module did not sign), the chain hash.
 * Undefined for a record that is no receipt or cannot be read.
 */
export function receiptRecordOf(archived: ArchivedRecord): ReceiptRecord | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(archived.data);
  } catch {
    return undefined;
  }
  if (!isObj(parsed as Obj) || str(parsed as Obj, '_') !== 'Tra' || !isObj((parsed as Obj).ESR)) return undefined;
  const { _: _type, ...data } = parsed as Obj;
  const stored = data.Fis;
  if (archived.sig) {
    const answered = answerOf({ data: parsed as Obj, hash: Buffer.from(archived.hash, 'hex'), sig: Buffer.from(archived.sig, 'base64') }).body.Fis;
    if (isObj(answered) || isObj(stored)) data.Fis = { ...(isObj(stored) ? stored : {}), ...(isObj(answered) ? answered : {}) };
  }
  data.Hash = archived.hash;
  return { type: 'Tra', data };
}

/** The Cfg in force at the receipt's SQ: the last archived Cfg record before it, else the company's base data. */
async function cfgAt(ctx: PortalContext, registerNumber: string, sq: number): Promise<Obj> {
  const found = await ctx.store.archivedCfgBefore(registerNumber, sq);
  if (found) {
    try {
      const cfg = (JSON.parse(found.data) as Obj).Cfg;
      if (isObj(cfg)) return cfg;
    } catch {
      // an unreadable record: the company's data stand in
    }
  }
  const register = await ctx.store.getRegister(registerNumber);
  const company = register ? await ctx.store.getEntity(register.companyId) : undefined;
  if (!company) return {};
  const cmp: Obj = cfgPartOf(company);
  if (company.taxId) cmp.TaxId = company.taxId;
  return { Cmp: cmp };
}

/** The receipts a document handle names (more than one when receipts share the transaction handle); [] when none. */
export async function receiptsOfHandle(ctx: PortalContext, dh: string): Promise<ArchivedReceipt[]> {
  if (!isDocumentHandle(dh)) return [];
  const registerNumber = await ctx.store.registerOfHandle(dh.slice(0, REGISTER_HANDLE_LENGTH));
  if (registerNumber === undefined) return [];
  const out: ArchivedReceipt[] = [];
  for (const archived of await ctx.store.archivedRecordsByTh(registerNumber, dh.slice(REGISTER_HANDLE_LENGTH))) {
    const record = receiptRecordOf(archived);
    if (!record) continue;
    const cfg = await cfgAt(ctx, registerNumber, archived.sq);
    out.push({ registerNumber, sq: archived.sq, record, cfg, lang: asLang(str(obj(cfg, 'Trm') ?? {}, 'Lang')) });
  }
  return out;
}
