/** What the journal's and the portal's PostgreSQL stores share: the URL check, the pool, one transaction. */
import pg, { type Pool, type PoolClient } from 'pg';

export function isPostgresUrl(url: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(url);
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PoolOptions {
  url: string;
  /** a plain schema name put first on the search path of every connection */
  schema?: string;
  poolSize?: number;
}

/** A pool of connections to the URL, an idle connection's error handed to `onIdleError` instead of crashing. */
export function openPool(options: PoolOptions, onIdleError: (err: Error) => void): Pool {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) throw new Error(`not a plain schema name: ${options.schema}`);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    ...(options.schema !== undefined ? { options: `-c search_path=${options.schema}` } : {}),
  });
  pool.on('error', onIdleError);
  return pool;
}

/**
 * One transaction on a pooled connection: BEGIN, the work, COMMIT; on any failure ROLLBACK, and a connection
 * whose ROLLBACK fails is not given back to the pool.
 */
export async function inTransaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (err) {
    const broken = await client.query('ROLLBACK').then(() => undefined, (e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    client.release(broken);
    throw err;
  }
}

/** A store brought to its newest schema; closed again (and the failure passed on) when the migration fails. */
export async function migratedOrClosed<T extends { migrate(): Promise<void>; close(): Promise<void> }>(store: T): Promise<T> {
  try {
    await store.migrate();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
