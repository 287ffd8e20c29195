/**
 * The `efr` command: `efr serve [--port N] [--data DIR]` (also EFR_PORT, EFR_DATA).
 * Later programs (portal, verify, ...) are subcommands of the same entry.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Stopped } from './register/maintenance/service-control.js';
import { APIKEY_USAGE } from './register/security/api-key-usage.js';
import { PORTAL_USAGE } from './portal/usage.js';

const USAGE = `usage: efr <command> [options]

commands:
  serve     start the register service
            --port N     HTTP port (default 5618, or EFR_PORT)
            --data DIR   data folder (default ./data, or EFR_DATA)
            --db URL     the journal on PostgreSQL (or EFR_DB): postgres://user@host/db, a schema
                         with ?options=-c%20search_path%3Defr; default the SQLite file in DIR
            --host ADDR  address to listen on (default 0.0.0.0)
            --cloud      cloud mode (or EFR_CLOUD=true): every request needs a bearer token from
                         POST /auth/token; token lifetimes EFR_TOKEN_ACCESS_TTL (default 3600 s)
                         and EFR_TOKEN_REFRESH_TTL (default 604800 s)
            --service    runs under a service manager (systemd, NSSM, WinSW; systemd is also
                         recognised by itself): the daily restart App_restartAt defaults to 03:00.
                         POST /service/restart and App_restartAt exit with code 75 for the manager
                         to start the service again; SIGTERM/SIGINT exit with 0 (docs/operations.md)
  verify    verify a journal export: efr verify <jou.zip>
            checks every record's hash chain and signature, names the first broken one
            efr verify --country at <dep-export.zip>: an Austrian DEP export (RKSV)
            efr verify --country de <export.tar>: a German TSE export (TR-03153)
            efr verify --country fr <export.xml|jou.zip>: a French NF525 signature chain
            efr verify --country pt <export.zip|saft.xml>: a Portuguese SAF-T PT hash chain
            efr verify --country es <export.zip>: Spanish VeriFactu records (hash chain)
            efr verify --country no [--key <pem>] <export.zip|saft.xml>: a Norwegian SAF-T Cash
                         Register signature chain (RSA-SHA1)
            efr verify --country dk [--key <pem>] <export.zip|saft.xml>: a Danish SAF-T Cash
                         Register signature chain (RSA-SHA512, each transaction's certificate)
            efr verify --country sk --key <certificate.pem> <jou.zip>: a Slovak journal: its chain,
                         every receipt's PKP (RSA-SHA256 by the certificate) and OKP (SHA-1 of the PKP)
            efr verify --country se [--key <pem>] <export.zip|saft.xml|jou.zip>: a Swedish SAF-T
                         Cash Register export or journal export: the control unit's signatures
                         (ECDSA P-256) of receipts and copies (a journal export needs --key)
            no, dk, se: the SHA-256 fingerprint of every key used is printed: compare it with the
            declared key. --key <pem> (repeatable) pins it: NO the declared public key, DK the
            expected certificate or public key, SE the control unit's public key; a signature by
            any other key is a failure naming the transaction. previous-signature.txt (in the zip
            or beside the XML) chains a period's first transaction to the one before; without it
            that one is not checked
${APIKEY_USAGE}${PORTAL_USAGE}`;

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { port: { type: 'string' }, data: { type: 'string' }, db: { type: 'string' }, host: { type: 'string' }, cloud: { type: 'boolean' }, service: { type: 'boolean' } },
    strict: true,
  });
  const portText = values.port ?? process.env.EFR_PORT ?? '5618';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${portText}`);
  const dataDir = resolve(values.data ?? process.env.EFR_DATA ?? 'data');
  // systemd sets INVOCATION_ID for the processes of a unit; a terminal (a TTY) is no service manager
  const asService = values.service === true || (Boolean(process.env.INVOCATION_ID) && !process.stdout.isTTY);
  // each command loads its own modules: the portal and the verifiers do not load the register service
  const [{ startService }, { isRestart }] = await Promise.all([import('./register/server.js'), import('./register/maintenance/service-control.js')]);
  const exitWith = (stopped: Stopped): void => {
    process.stdout.write(`efr: closed${isRestart(stopped.reason) ? ' for a restart' : ''}, exit code ${stopped.exitCode}\n`);
    process.exit(stopped.exitCode);
  };
  const service = await startService({
    port,
    dataDir,
    ...(values.db ? { db: values.db } : {}),
    ...(values.host ? { host: values.host } : {}),
    ...(values.cloud ? { cloud: true } : {}),
    service: asService,
    onRestart: exitWith,
  });
  if (service.http) process.stdout.write(`efr register service listening on ${service.url} (data ${dataDir})\n`);
  else process.stdout.write(`efr register service started without HTTP listener (HttpServer_Disable; data ${dataDir})\n`);
  const stop = (signal: 'SIGTERM' | 'SIGINT'): void => {
    if (!service.control.stoppingNow) process.stdout.write(`efr: ${signal}, closing after the last commit\n`);
    // a signal during a restart joins the close under way, and exits with the restart's code
    void service.control.stop(signal).then(exitWith);
  };
  // nothing may end the service unnoticed: a stray rejection is logged and the service goes on
  process.on('unhandledRejection', (e) => process.stderr.write(`efr: unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'apikey':
      process.exitCode = await (await import('./register/security/api-key-cli.js')).apiKeyCommand(rest);
      return;
    case 'portal':
      // loaded only here: neither program pays for the other's modules
      process.exitCode = await (await import('./portal/cli.js')).portalCommand(rest);
      return;
    case 'verify':
      if (rest.some((a) => a === '--country' || a.startsWith('--country='))) {
        const { VERIFIERS } = await import('./register/fiscal/verifiers.js');
        const usage = (why: string): void => {
          const forms = Object.entries(VERIFIERS).map(([cc, v]) => `  efr verify --country ${cc}${v.key ? ' [--key <pem>]' : ''} <${v.file}>${v.key ? `\n      --key: ${v.key}` : ''}`);
          process.stderr.write(`efr verify: ${why}\nusage:\n${forms.join('\n')}\n`);
          process.exitCode = 2;
        };
        let parsed: { values: { country?: string; key?: string[] }; positionals: string[] };
        try {
          parsed = parseArgs({ args: rest, options: { country: { type: 'string' }, key: { type: 'string', multiple: true } }, allowPositionals: true, strict: true });
        } catch (e) {
          usage(e instanceof Error ? e.message : String(e));
          return;
        }
        const cc = (parsed.values.country ?? '').toLowerCase();
        const verifier = VERIFIERS[cc];
        const keys = parsed.values.key ?? [];
        if (!verifier) return usage(`unknown country "${cc}"`);
        if (parsed.positionals.length !== 1) return usage('give one export file');
        if (keys.length > 0 && !verifier.key) return usage(`--key is not taken for --country ${cc}`);
        const report = await verifier.verify(parsed.positionals[0] as string, keys.length > 0 ? { keys } : {});
        (report.ok ? process.stdout : process.stderr).write(`${report.text}\n`);
        process.exitCode = report.ok ? 0 : 1;
        return;
      }
      process.exitCode = await (await import('./register/journal/export/verify-cli.js')).verifyCommand(rest);
      return;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return;
    default:
      process.stderr.write(`efr: unknown command ${command}\n${USAGE}`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`efr: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
