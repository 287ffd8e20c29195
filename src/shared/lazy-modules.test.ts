import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The packages lazy-modules.ts loads on first use, and pg, which only a journal in PostgreSQL loads. */
const LAZY = ['@peculiar/x509', '@xmldom/xmldom', 'ejs', 'i18n-iso-countries', 'node-forge', 'pdfkit', 'pg', 'pug', 'qrcode', 'undici', 'xml-crypto'];

/**
 * Run in a process of its own (a fresh module cache): starts the service on the SQLite journal, registers
 * one sale over HTTP (node's own fetch, not the undici package), and prints the packages that were loaded.
 */
const CHILD = `
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const [serverTs, dataDir, names] = process.argv.slice(1);
const { startService } = await import(pathToFileURL(serverTs).href);
const svc = await startService({ port: 0, host: '127.0.0.1', dataDir, log: false, env: {} });
const esr = { TL: '1', TT: '1', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Bread', TaxG: 'A', Amt: '3.50' }], PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '3.50' }] };
const res = await fetch(svc.url + '/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Tra: { ESR: esr } }) });
const answer = await res.text();
const cache = Object.keys(createRequire(import.meta.url).cache);
const loaded = JSON.parse(names).filter((n) => cache.some((f) => f.includes('/node_modules/' + n + '/')));
await svc.close();
process.stdout.write(JSON.stringify({ status: res.status, answer, loaded }));
`;

test('the start and a sale load none of the packages only some routes, countries or journals need', { timeout: 60_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'efr-lazy-'));
  try {
    const serverTs = fileURLToPath(new URL('../register/server.ts', import.meta.url));
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD, serverTs, dataDir, JSON.stringify(LAZY)], { timeout: 50_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      );
    });
    const { status, answer, loaded } = JSON.parse(out) as { status: number; answer: string; loaded: string[] };
    assert.equal(status, 200, answer);
    assert.match(answer, /"RC":"OK"/);
    assert.deepEqual(loaded, []);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
