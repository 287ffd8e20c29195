/**
 * `efr apikey create --taxid <TaxId> [--name label] [--data DIR] [--json]`, `efr apikey list`,
 * `efr apikey revoke <key>`: the API keys of cloud POS, kept hashed in the journal store's settings.
 * Works while the service runs (the service reads keys from the store at every token request).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { journalSqliteFile, openJournalStore } from '../journal/open.js';
import { SqliteJournalStore } from '../journal/sqlite/sqlite-store.js';
import type { JournalStore } from '../journal/types.js';
import { ApiKeys } from './api-keys.js';
import { APIKEY_USAGE } from './api-key-usage.js';

interface Output {
  out(text: string): void;
  err(text: string): void;
}

const stdio: Output = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/** Runs the subcommand; the exit code (0 done, 1 unknown key, 2 usage). */
export async function apiKeyCommand(args: readonly string[], io: Output = stdio): Promise<number> {
  const [action, ...rest] = args;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { taxid: { type: 'string' }, name: { type: 'string' }, data: { type: 'string' }, db: { type: 'string' }, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    io.err(`efr apikey: ${e instanceof Error ? e.message : String(e)}\n${APIKEY_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const usage = (why: string): number => {
    io.err(`efr apikey: ${why}\nusage:\n${APIKEY_USAGE}`);
    return 2;
  };
  if (action !== 'create' && action !== 'list' && action !== 'revoke') return usage(action ? `unknown action ${action}` : 'an action is required');
  if (action === 'create' && !values.taxid) return usage('--taxid is required');
  if (action === 'revoke' && positionals.length !== 1) return usage('the key to revoke is required');
  if (action !== 'revoke' && positionals.length) return usage(`unexpected ${positionals.join(' ')}`);

  const dataDir = resolve(values.data ?? process.env.EFR_DATA ?? 'data');
  const url = values.db ?? process.env.EFR_DB;
  let store: JournalStore;
  try {
    store = url ? await openJournalStore({ dataDir, url }) : new SqliteJournalStore(journalSqliteFile(dataDir));
  } catch (e) {
    io.err(`efr apikey: the journal cannot be opened: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  try {
    const keys = new ApiKeys(store);
    const now = new Date();
    switch (action) {
      case 'create': {
        const { record, secret } = await keys.create(values.taxid as string, values.name, now);
        if (values.json) {
          io.out(`${JSON.stringify({ api_key: record.key, api_secret: secret, TaxId: record.taxId, ...(record.name ? { name: record.name } : {}) })}\n`);
        } else {
          io.out(
            `API key:    ${record.key}\nAPI secret: ${secret}\nTaxId:      ${record.taxId}\n${record.name ? `name:       ${record.name}\n` : ''}` +
              'The secret is shown only this once; the service keeps only its SHA-256 digest.\n',
          );
        }
        return 0;
      }
      case 'list': {
        const all = await keys.list();
        if (!all.length) io.out('no API keys\n');
        for (const k of all) io.out(`${k.key}\t${k.taxId}\t${k.name ?? ''}\tcreated ${k.created}\t${k.revoked ? `revoked ${k.revoked}` : 'active'}\n`);
        return 0;
      }
      case 'revoke': {
        const key = positionals[0] as string;
        if (!(await keys.revoke(key, now))) {
          io.err(`efr apikey: unknown key ${key}\n`);
          return 1;
        }
        io.out(`revoked ${key}; its refresh tokens no longer work, its access tokens end within their lifetime\n`);
        return 0;
      }
    }
  } catch (e) {
    io.err(`efr apikey: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  } finally {
    await store.close();
  }
}
