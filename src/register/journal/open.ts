/**
 * Opens the register service's journal: without a URL the SQLite file `<dataDir>/journal/journal.sqlite`
 * (committed by its writer thread); with a `postgres://` or `postgresql://` URL that PostgreSQL database,
 * brought to the newest schema (a schema other than the default one is chosen in the URL:
 * `?options=-c%20search_path%3Defr`). Keys, logs and the other files stay in the data folder either way.
 */
import { join } from 'node:path';
import { SqliteJournalStore } from './sqlite/sqlite-store.js';
import type { JournalStore } from './types.js';

export function journalSqliteFile(dataDir: string): string {
  return join(dataDir, 'journal', 'journal.sqlite');
}

export async function openJournalStore(options: { dataDir: string; url?: string }): Promise<JournalStore> {
  const { url } = options;
  if (url === undefined || url === '') return new SqliteJournalStore(journalSqliteFile(options.dataDir), { writerThread: true });
  // the PostgreSQL client (pg, about 20 ms of the start) is loaded only for a journal in PostgreSQL
  const { isPostgresUrl, migratedOrClosed } = await import('../../shared/postgres.js');
  const { PostgresJournalStore } = await import('./postgres/postgres-journal-store.js');
  if (!isPostgresUrl(url)) throw new Error('the journal database URL (--db, EFR_DB) must start with postgres:// or postgresql://');
  return migratedOrClosed(new PostgresJournalStore({ url }));
}
