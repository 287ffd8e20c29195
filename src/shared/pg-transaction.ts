/**
 * One PostgreSQL transaction on a pooled connection: BEGIN, the work, COMMIT; on any failure ROLLBACK, and a
 * connection whose ROLLBACK fails is not given back to the pool. Used by the journal's and the portal's stores.
 */
import type { Pool, PoolClient } from 'pg';

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
