/** `efr verify <export.zip>`: checks a journal export (hash chain, signatures, completeness of its range). */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { describeReport } from './verify-core.js';
import { verifyZip } from './verify-zip.js';

export const VERIFY_USAGE = `usage: efr verify <export.zip>

Verifies a journal export (GET /export?type=jou): every record's hash chain link and signature,
SQ contiguous from firstSQ to lastSQ of manifest.json, files named by SQ range.
Exit code 0 when it verifies, 1 when a record or file is broken (or the zip cannot be read), 2 on wrong usage.
The same check runs without the service: unzip the export and run node verify.mjs in its folder.
`;

export interface VerifyOutput {
  out(text: string): void;
  err(text: string): void;
}

const processOutput: VerifyOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** Prints `OK: N records, SQ a..b, chain and signatures verify` or `BROKEN at SQ n (file NNNN.jou): reason`; returns the exit code. */
export async function verifyCommand(args: string[], output: VerifyOutput = processOutput): Promise<number> {
  let positionals: string[];
  let help = false;
  try {
    const parsed = parseArgs({ args, allowPositionals: true, strict: true, options: { help: { type: 'boolean', short: 'h' } } });
    positionals = parsed.positionals;
    help = parsed.values.help === true;
  } catch (e) {
    output.err(`efr verify: ${e instanceof Error ? e.message : String(e)}\n${VERIFY_USAGE}`);
    return 2;
  }
  if (help) {
    output.out(VERIFY_USAGE);
    return 0;
  }
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) {
    output.err(VERIFY_USAGE);
    return 2;
  }
  let report;
  try {
    report = await verifyZip(resolve(file));
  } catch (e) {
    output.err(`efr verify: cannot read ${file} as a zip: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  output.out(`${describeReport(report)}\n`);
  if (report.ok) output.out(`register ${report.rn ?? '?'}, public key id ${report.keyId ?? '?'} (public.pem of the export; compare it with the key published for this register)\n`);
  return report.ok ? 0 : 1;
}
