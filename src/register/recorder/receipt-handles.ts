/**
 * Digital receipts, the register service's side: what the recorder adds to what it sends
 * to the portal, so that the portal can find a receipt by its document handle (DH = register handle + transaction
 * handle, src/register/render/qr/document-handle.ts).
 *
 * - the activation carries the instance's register handle of the register it activates (`registerHandle`);
 * - every archived Tra record carries its transaction handle (`th`) and the journal signature (`sig`, base64),
 *   so that the portal's receipt page prints Fis.Code as the service answers it (in countries where the journal
 *   signature is the receipt's signature, the code is made from it) and can check the handle against it.
 *   Other record types (TraS, Cfg, log, ...) are no receipts: they get no handle and have no page.
 *
 * Pure functions: the recorder calls them while it builds its requests.
 */
import type { JournalRecord } from '../journal/types.js';
import { registerHandle, transactionHandle } from '../render/qr/document-handle.js';

/** What the activation body adds: the register handle of the activated register on this instance. */
export interface ActivationHandleFields {
  /** 16 characters A-Z, 2-7 */
  registerHandle: string;
}

/** What an archived record adds; empty for records that are no receipts. */
export interface ArchiveRecordExtras {
  /** the transaction handle: 5 characters A-Z, 2-7 */
  th?: string;
  /** the journal signature, base64 (absent when the record has none) */
  sig?: string;
}

/** The types of journal records that are receipts and thus have a document handle. */
export const RECEIPT_RECORD_TYPES: readonly JournalRecord['type'][] = ['Tra'];

/**
 * The fields the activation adds. `ctx` needs only the signer (the instance's key id); `rn` is the register's
 * local number (`def`, or `TaxId$TL_TT` in Multi POS), the same one GET /recorder/lastdh names the handle with.
 */
export function activationHandleFields(ctx: { signer: { keyId: string } }, rn: string): ActivationHandleFields {
  return { registerHandle: registerHandle(ctx.signer.keyId, rn) };
}

/** The fields an archived record adds: the transaction handle and signature of a receipt, nothing otherwise. */
export function archiveRecordExtras(record: Pick<JournalRecord, 'type' | 'sig' | 'hash'>): ArchiveRecordExtras {
  if (!RECEIPT_RECORD_TYPES.includes(record.type)) return {};
  return { th: transactionHandle(record), ...(record.sig.length > 0 ? { sig: record.sig.toString('base64') } : {}) };
}
