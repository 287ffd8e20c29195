/**
 * A throw-away schema for tests and the benchmark: `efr_t_<random>` (or another prefix), made on the server
 * of EFR_TEST_PG and dropped after, so that parallel runs never see each other's rows. An unreachable
 * server is an error that says how to start it, never a silent skip.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const DEFAULT_TEST_PG = 'postgres://postgres@127.0.0.1:5432/test';

export function testPgUrl(): string {
  return process.env.EFR_TEST_PG || DEFAULT_TEST_PG;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

export function unreachableMessage(url: string, err: unknown): string {
  const why = err instanceof Error ? err.message || String((err as { code?: unknown }).code ?? err.name) : String(err);
  return `PostgreSQL is not reachable at ${redactUrl(url)} (${why}). The portal store tests need it: start the server`
    + ' (`pg_ctlcluster 15 main start`, which .ci/run does when it is down) or point EFR_TEST_PG at one'
    + ' (postgres://user@host:port/database; the user must be allowed to create schemas).';
}

export interface ScratchSchema {
  url: string;
  schema: string;
  /** the URL that works in the schema (`?options=-c search_path=<schema>`), as `--db` takes it */
  schemaUrl: string;
  drop(): Promise<void>;
}

export async function createScratchSchema(url = testPgUrl(), prefix = 'efr_t_'): Promise<ScratchSchema> {
  const schema = `${prefix}${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (err) {
    await admin.end().catch(() => undefined);
    throw new Error(unreachableMessage(url, err), { cause: err });
  }
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  const inSchema = new URL(url);
  inSchema.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url,
    schema,
    schemaUrl: inSchema.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}
