/**
 * How far a register's journal is safely archived: by a backup (GET /backup, /backup/incremental) or,
 * later, by the portal connection. Cleaning (POST /disk/clean, DiskQuota) removes journal records only up
 * to this SQ. Kept in the journal store's settings (`archive:<RN>`), so every store kind works.
 */
import type { JournalStore } from '../journal/types.js';

export type ArchiveKind = 'backup' | 'incremental' | 'portal';

export interface ArchiveMark {
  /** the highest SQ of the register that is archived (every record up to it) */
  sq: number;
  /** ISO time the archive was made */
  at: string;
  kind: ArchiveKind;
  /** the archive's file name, when there is one */
  file?: string;
}

type Settings = Pick<JournalStore, 'getSetting' | 'putSetting'>;

const key = (rn: string): string => `archive:${rn}`;

export async function archivedUpTo(store: Settings, rn: string): Promise<ArchiveMark | undefined> {
  const text = await store.getSetting(key(rn));
  if (text === undefined) return undefined;
  const mark = JSON.parse(text) as ArchiveMark;
  return Number.isSafeInteger(mark.sq) && mark.sq >= 0 ? mark : undefined;
}

/** Records an archive up to `mark.sq`; an older mark never replaces a newer one. */
export async function markArchived(store: Settings, rn: string, mark: ArchiveMark): Promise<void> {
  const known = await archivedUpTo(store, rn);
  if (known && known.sq >= mark.sq) return;
  await store.putSetting(key(rn), JSON.stringify(mark));
}
