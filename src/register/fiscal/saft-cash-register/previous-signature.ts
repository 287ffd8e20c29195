/**
 * previous-signature.txt of a SAF-T Cash Register export: the signature of the transaction before the
 * period, one line `<registerID> <nr> <signature>` per register, so the first signature of a period can be
 * checked. Written by the exports, read by the verifiers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SaftScan } from './passes.js';

export const PREVIOUS_SIGNATURE_FILE = 'previous-signature.txt';

/** The line of previous-signature.txt, when the file's first cash transaction is not the register's first. */
export function previousSignatureLine(scan: SaftScan | undefined): string | undefined {
  return scan?.previous ? `${scan.registerId} ${scan.previous.nr} ${scan.previous.signature}\n` : undefined;
}

/** The previous signature of a register's period: the transaction before the period's first. */
export interface PreviousSignature {
  nr: string;
  signature: string;
}

/**
 * Reads `previous-signature.txt`: one line `<registerID> <nr> <signature>` per register (the register id
 * is all before the last two fields); empty lines are skipped. A text saying what is wrong otherwise.
 */
export function parsePreviousSignatures(text: string): Map<string, PreviousSignature> | string {
  const map = new Map<string, PreviousSignature>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) continue;
    const m = /^(.+?)\s+(\d{1,36})\s+(\S+)$/.exec(line);
    if (!m) return `${PREVIOUS_SIGNATURE_FILE} line ${i + 1} is not "<registerID> <nr> <signature>"`;
    const registerID = m[1] as string;
    if (map.has(registerID)) return `${PREVIOUS_SIGNATURE_FILE} names register ${registerID} twice`;
    map.set(registerID, { nr: m[2] as string, signature: m[3] as string });
  }
  return map;
}

/** The text of a previous-signature.txt beside a bare XML file, if there is one. */
export function previousBeside(path: string): string | undefined {
  const file = join(dirname(path), PREVIOUS_SIGNATURE_FILE);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}
