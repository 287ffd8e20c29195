/**
 * `efr portal [--port 5619] [--host ADDR] [--data DIR] [--db postgres://...]` starts the management portal;
 * `efr portal init [--data DIR] [--db URL] [--name NAME]` creates the root organization and its admin client.
 * Also EFR_PORTAL_PORT, EFR_DATA, EFR_PORTAL_DB; `--trust-proxy true|<addresses>` / PORTAL_TRUST_PROXY (trust-proxy.ts).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from '../shared/clock.js';
import { AlreadyInitialised, initPortal } from './init.js';
import { notificationOptions } from './notifications/options.js';
import { DEFAULT_PORTAL_PORT, startPortal } from './server.js';
import { trustProxyOption } from './trust-proxy.js';
import { openPortalStore } from './store/open.js';

export { PORTAL_USAGE } from './usage.js';

/** Returns the exit code for init; for the server, undefined once it listens (it runs until a signal). */
export async function portalCommand(args: string[]): Promise<number | undefined> {
  const init = args[0] === 'init';
  const { values } = parseArgs({
    args: init ? args.slice(1) : args,
    options: {
      port: { type: 'string' }, host: { type: 'string' }, data: { type: 'string' }, db: { type: 'string' }, name: { type: 'string' },
      'silent-after': { type: 'string' }, 'escalate-after': { type: 'string' }, 'reopen-within': { type: 'string' }, 'smtp-url': { type: 'string' }, 'mail-from': { type: 'string' },
      'trust-proxy': { type: 'string' },
    },
    strict: true,
  });
  const dataDir = resolve(values.data ?? process.env.EFR_DATA ?? 'data');
  const dbUrl = values.db ?? process.env.EFR_PORTAL_DB;
  if (init) {
    const store = await openPortalStore({ dataDir, ...(dbUrl ? { url: dbUrl } : {}) });
    try {
      await store.migrate();
      const r = await initPortal(store, systemClock, values.name);
      process.stdout.write(
        `efr portal initialised: root organization ${r.organization.id} "${r.organization.name}" (badge ${r.organization.badge ?? ''})\n` +
          `admin API client (ReadCompany, ManageCompany, ReadRegister, ManageRegister on organization ${r.organization.id}):\n` +
          `  clientId:     ${r.clientId}\n` +
          `  clientSecret: ${r.clientSecret}\n` +
          `The secret is shown only this once; it is stored hashed. Get a token with POST /api/v1/auth/token.\n`,
      );
      return 0;
    } catch (e) {
      if (e instanceof AlreadyInitialised) {
        process.stderr.write(`efr portal init: ${e.message}; nothing changed\n`);
        return 1;
      }
      throw e;
    } finally {
      await store.close();
    }
  }
  const portText = values.port ?? process.env.EFR_PORTAL_PORT ?? String(DEFAULT_PORTAL_PORT);
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${portText}`);
  const portal = await startPortal({ port, dataDir, ...(dbUrl ? { dbUrl } : {}), ...(values.host ? { host: values.host } : {}), ...notificationOptions(values), ...trustProxyOption(values['trust-proxy'] ?? process.env.PORTAL_TRUST_PROXY) });
  process.stdout.write(`efr portal listening on ${portal.url} (data ${dataDir}${dbUrl ? ', PostgreSQL' : ''}); reference ${portal.url}/docs\n`);
  const stop = (signal: string): void => {
    process.stdout.write(`efr portal: ${signal}, closing\n`);
    portal.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return undefined;
}
