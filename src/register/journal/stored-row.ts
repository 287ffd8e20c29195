/**
 * A journal row as both stores keep it (the record text compressed, record-text.ts, the optional index columns null when
 * absent) and its JournalRecord. Ids come as numbers (SQLite) or int8 strings (PostgreSQL).
 */
import { unpackRecordText } from './record-text.js';
import type { JournalRecord, RecordType } from './types.js';

export interface StoredRow<Id> {
  rid: Id; sq: Id; type: string; d: string;
  tl: string | null; tt: string | null; tn: string | null; fn: string | null; t: string | null; nfs: string | null; bc: string | null;
  ch: Buffer | null; rh: Buffer | null; ref: string | null; resume: string | null; data: Buffer; hash: Buffer; sig: Buffer;
}

const OPTIONAL = ['tl', 'tt', 'tn', 'fn', 't', 'nfs', 'bc', 'ch', 'rh', 'ref', 'resume'] as const;

export function recordOfRow<Id>(r: StoredRow<Id>, id: (v: Id) => number): JournalRecord {
  const rec: JournalRecord = { rid: id(r.rid), sq: id(r.sq), type: r.type as RecordType, d: r.d, data: unpackRecordText(r.data), hash: r.hash, sig: r.sig };
  const out = rec as unknown as Record<string, unknown>;
  for (const k of OPTIONAL) if (r[k] !== null) out[k] = r[k];
  return rec;
}
