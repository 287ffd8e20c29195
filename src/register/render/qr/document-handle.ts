/**
 * The document handle of a transaction for the digital receipt (GET /recorder/lastdh), made locally
 * until the portal connection exists: `<register handle><transaction handle>`, 16 + 5 characters of
 * base32 (A-Z, 2-7: all in QR alphanumeric mode, which keeps the code small; no 0/O or 1/I to confuse).
 *
 * - the register handle is stable for this instance (its journal signing key) and the register:
 *   SHA-256 over both, so it names no company data and two instances never share one;
 * - the transaction handle comes from the journal record's signature: it cannot be guessed from the
 *   receipt number (a neighbour's receipt is not found by counting), and it is the same on every
 *   call for the same record.
 * `small` QR codes leave the transaction handle out (the register's handle only).
 */
import { createHash } from 'node:crypto';
import type { JournalRecord } from '../../journal/types.js';
import { base32 } from '../../../shared/base32.js';

export const REGISTER_HANDLE_LENGTH = 16;
export const TRANSACTION_HANDLE_LENGTH = 5;

export function registerHandle(instanceKeyId: string, rn: string): string {
  return base32(createHash('sha256').update(`efr-dh\0${instanceKeyId}\0${rn}`).digest()).slice(0, REGISTER_HANDLE_LENGTH);
}

export function transactionHandle(record: Pick<JournalRecord, 'sig' | 'hash'>): string {
  // the signature, else (a record without one) its hash
  const source = record.sig.length > 0 ? record.sig : record.hash;
  return base32(createHash('sha256').update('efr-th\0').update(source).digest()).slice(0, TRANSACTION_HANDLE_LENGTH);
}

export interface DocumentHandle {
  /** the whole handle: register handle + transaction handle */
  handle: string;
  register: string;
  transaction: string;
}

export function documentHandle(instanceKeyId: string, rn: string, record: Pick<JournalRecord, 'sig' | 'hash'>): DocumentHandle {
  const register = registerHandle(instanceKeyId, rn);
  const transaction = transactionHandle(record);
  return { handle: register + transaction, register, transaction };
}
