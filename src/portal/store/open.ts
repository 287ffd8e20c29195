/**
 * Opens the portal's store: without a URL the SQLite file `<dataDir>/portal/portal.sqlite`; with a
 * `postgres://` or `postgresql://` URL that PostgreSQL database (a schema other than the default one is
 * chosen in the URL: `?options=-c%20search_path%3Dportal`). Brings the schema to the newest version.
 */
import { join } from 'node:path';
import { isPostgresUrl, migratedOrClosed } from '../../shared/postgres.js';
import { PostgresPortalStore } from './postgres/postgres-portal-store.js';
import { SqlitePortalStore } from './sqlite/sqlite-portal-store.js';
import type { PortalStore } from './types.js';

export function portalSqliteFile(dataDir: string): string {
  return join(dataDir, 'portal', 'portal.sqlite');
}

export async function openPortalStore(options: { dataDir: string; url?: string }): Promise<PortalStore> {
  const { url } = options;
  if (url !== undefined && !isPostgresUrl(url)) {
    throw new Error('the portal database URL must start with postgres:// or postgresql://');
  }
  const store: PortalStore = url === undefined ? new SqlitePortalStore(portalSqliteFile(options.dataDir)) : new PostgresPortalStore({ url });
  return migratedOrClosed(store);
}
