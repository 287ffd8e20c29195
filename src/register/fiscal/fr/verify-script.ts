/**
 * verify.mjs of the `nf525-jou` export: the journal check of every journal export
 * (src/register/journal/export/verify-core.ts) and the NF525 chain check (./verify-core.ts), both
 * copied from the functions this service runs, with a small main. Plain Node, no dependencies.
 */
import { compareJouNames, describeReport, verifyJournalFiles } from '../../journal/export/verify-core.js';
import { describeFrReport, frFieldNames, frItemsOfRecord, frSplit, verifyFrItems, verifyFrJouSeal } from './verify-core.js';

export function frVerifyScript(generator: string): string {
  const code = [compareJouNames, verifyJournalFiles, describeReport, frFieldNames, frSplit, frItemsOfRecord, verifyFrItems, describeFrReport, verifyFrJouSeal].map((f) => f.toString());
  // run from TypeScript source (tsx/esbuild keepNames) the text calls __name(fn, "name"); compiled by tsc it does not
  const shim = code.some((c) => c.includes('__name(')) ? 'const __name = (target) => target;\n\n' : '';
  return `#!/usr/bin/env node
// Proof script of an EFR NF525 journal export (nf525-jou), written by ${generator}.
// Usage: node verify.mjs [folder]   (default: the folder this script is in)
// Needs Node.js 18 or later and nothing else: it uses only node:crypto, node:fs and node:path.
// Exit code 0: the journal, every NF525 chain and the seal verify; 1: the first broken record is named.
import * as nodeCrypto from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

${shim}${code.join('\n\n')}

const folder = resolve(process.argv[2] ?? dirname(resolve(process.argv[1] ?? '.')));
const need = (name) => {
  const path = join(folder, name);
  if (!existsSync(path)) {
    console.log(\`BROKEN at SQ 0 (file \${name}): missing in \${folder}\`);
    process.exit(1);
  }
  return readFileSync(path, 'utf8');
};
const manifestText = need('manifest.json');
const publicKeyPem = need('public.pem');
const frKeyPem = need('fr-public.pem');
const names = readdirSync(folder).filter((n) => n.endsWith('.jou')).sort(compareJouNames);
function* files() {
  for (const name of names) yield { name, text: readFileSync(join(folder, name), 'utf8') };
}
const journal = await verifyJournalFiles(files(), manifestText, publicKeyPem, nodeCrypto);
console.log(\`journal: \${describeReport(journal)}\`);
function* items() {
  for (const f of files()) {
    let records;
    try {
      records = JSON.parse(f.text);
    } catch {
      continue;
    }
    if (!Array.isArray(records)) continue;
    for (const r of records) if (r && typeof r.data === 'string') yield* frItemsOfRecord(r.SQ, r.data);
  }
}
let complete = false;
try {
  complete = JSON.parse(manifestText).firstSQ === 1;
} catch {
  complete = false;
}
const chains = verifyFrItems(items(), frKeyPem, nodeCrypto, complete);
console.log(\`NF525: \${describeFrReport(chains)}\`);
const sealPath = join(folder, 'fr-seal.json');
const seal = verifyFrJouSeal(existsSync(sealPath) ? readFileSync(sealPath, 'utf8') : undefined, manifestText, chains.chains, frKeyPem, publicKeyPem, nodeCrypto);
console.log(\`seal: \${seal.text}\`);
process.exitCode = journal.ok && chains.ok && seal.ok ? 0 : 1;
`;
}
