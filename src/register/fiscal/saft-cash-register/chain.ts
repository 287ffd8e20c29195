/**
 * The chain verifier of the SAF-T Cash Register files: per register, its cashtransactions in chain order,
 * each signature over the one before (the first over previous-signature.txt when given), by a country's
 * rules (ChainRules); and the report's text.
 */
import type { KeyObject } from 'node:crypto';
import { type PinnedKey, keyFingerprint } from './pinned-keys.js';
import { PREVIOUS_SIGNATURE_FILE, type PreviousSignature } from './previous-signature.js';

/** True when `s` is canonical base64 (what re-encoding its bytes gives back). */
export function isCanonicalBase64(s: string): boolean {
  return s.length > 0 && s.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(s) && Buffer.from(s, 'base64').toString('base64') === s;
}

interface Broken {
  registerID: string;
  nr: string;
  transID: string;
  reason: string;
}

/** A key that verified signatures: its fingerprint, where it came from, how many it verified. */
export interface KeyUse {
  fingerprint: string;
  label: string;
  signatures: number;
}

/** What a chain verification found (every country's). */
export interface ChainReport {
  ok: boolean;
  /** per register: transactions in the file, and how many signatures were checked */
  registers: Array<{ registerID: string; transactions: number; verified: number; firstNr: string; lastNr: string }>;
  /** registers whose first transaction in the file is not nr 1 and has no previous signature: not checked */
  midChain: Array<{ registerID: string; nr: string }>;
  /** registers whose first transaction was chained to previous-signature.txt */
  chained: Array<{ registerID: string; nr: string; previousNr: string; previousSignature: string }>;
  /** every key a signature was verified with (or found made with), by fingerprint */
  keys: KeyUse[];
  /** the `--key` keys, when given */
  pinned: PinnedKey[];
  broken?: Broken;
}

export interface ChainVerifyOptions {
  /** `--key`: only these public keys may have made the signatures */
  pinned?: readonly PinnedKey[];
  /** previous-signature.txt, by register id */
  previous?: ReadonlyMap<string, PreviousSignature>;
}

/** What every chained cashtransaction has. */
export interface ChainTransaction {
  nr: string;
  transID: string;
  signature: string;
}

/** A country's rules for its chains (what verifyChains leaves to it); a hook returns the reason a transaction is broken, if it is. */
export interface ChainRules<T extends ChainTransaction> {
  /** the transactions in chain order (default: as in the file), or the first one that cannot be ordered */
  order?(transactions: readonly T[]): T[] | { t: T; reason: string };
  /** the checks before the signature (number, gap, forms) */
  check(t: T, prev: T | undefined): string | undefined;
  /** the form of the signature previous-signature.txt gives for the transaction before the first */
  previousForm(t: T, before: PreviousSignature): string | undefined;
  /** true when `t` is the first of its register's chain (signed over '0') */
  startsChain(t: T): boolean;
  /** the signature of `t` over `prevSignature`; `use` names the key that verified it */
  verify(t: T, prevSignature: string, registerID: string, use: (key: KeyObject, label: string) => void): string | undefined;
}

/**
 * Verifies the chains of the registers by a country's rules: per register, the transactions in chain
 * order, the first chained to previous-signature.txt when given (else, not nr 1, mid-chain: not checked).
 * Stops at the first broken transaction.
 */
export function verifyChains<T extends ChainTransaction>(
  registers: ReadonlyArray<{ registerID: string; transactions: readonly T[] }>, rules: ChainRules<T>, options: ChainVerifyOptions = {},
): ChainReport {
  const pinned = options.pinned ?? [];
  const report: ChainReport = { ok: true, registers: [], midChain: [], chained: [], keys: [], pinned: [...pinned] };
  const used = new Map<string, KeyUse>();
  const use = (key: KeyObject, label: string): void => {
    const fingerprint = keyFingerprint(key);
    const known = used.get(fingerprint);
    if (known) known.signatures += 1;
    else {
      const k = { fingerprint, label, signatures: 1 };
      used.set(fingerprint, k);
      report.keys.push(k);
    }
  };
  for (const reg of registers) {
    const entry = { registerID: reg.registerID, transactions: reg.transactions.length, verified: 0, firstNr: '', lastNr: '' };
    report.registers.push(entry);
    const fail = (t: T, reason: string): ChainReport => {
      report.ok = false;
      report.broken = { registerID: reg.registerID, nr: t.nr, transID: t.transID, reason };
      return report;
    };
    const ordered = rules.order ? rules.order(reg.transactions) : reg.transactions;
    if (!Array.isArray(ordered)) {
      const bad = ordered as { t: T; reason: string };
      return fail(bad.t, bad.reason);
    }
    const before = options.previous?.get(reg.registerID);
    let prev: T | undefined;
    for (const t of ordered as readonly T[]) {
      const broken = rules.check(t, prev);
      if (broken !== undefined) return fail(t, broken);
      let prevSignature = prev ? prev.signature : '0';
      if (!prev && before) {
        if (BigInt(t.nr) !== BigInt(before.nr) + 1n) {
          return fail(t, `${PREVIOUS_SIGNATURE_FILE} gives nr ${before.nr} as the transaction before the period, so the first one must be nr ${BigInt(before.nr) + 1n}, not nr ${t.nr}`);
        }
        const form = rules.previousForm(t, before);
        if (form !== undefined) return fail(t, form);
        prevSignature = before.signature;
        report.chained.push({ registerID: reg.registerID, nr: t.nr, previousNr: before.nr, previousSignature: before.signature });
      }
      if (!prev && !rules.startsChain(t) && !before) {
        // the previous signature is in the previous file: this one cannot be checked, the next ones can
        report.midChain.push({ registerID: reg.registerID, nr: t.nr });
      } else {
        const bad = rules.verify(t, prevSignature, reg.registerID, use);
        if (bad !== undefined) return fail(t, bad);
        entry.verified += 1;
      }
      if (!prev) entry.firstNr = t.nr;
      entry.lastNr = t.nr;
      prev = t;
    }
  }
  return report;
}

/** The lines naming the keys: each key used with its SHA-256 fingerprint, and the --key ones. */
export function keyLines(keys: readonly KeyUse[], pinned: readonly PinnedKey[]): string[] {
  const lines = keys.map((k) => `  key: ${k.label}, SHA-256 ${k.fingerprint}, ${k.signatures} signatures`);
  for (const p of pinned) lines.push(`  pinned: ${p.label}, SHA-256 ${p.fingerprint}`);
  if (pinned.length === 0 && keys.length > 0) {
    lines.push('  note: the keys come from the export itself: compare their fingerprints with the declared public key (or give it with --key <pem>)');
  }
  return lines;
}

/** What a country's report text says in its own words. */
export interface ChainReportTexts {
  /** the head's end when every signature in the file was checked */
  all(total: number): string;
  /** the head's end when some were not (mid-chain) */
  partial(total: number, count: number): string;
  /** the note on a register starting mid-chain */
  midChain(m: ChainReport['midChain'][number]): string;
}

/** The text of a chain report: OK with per register counts, chained and mid-chain notes, or BROKEN at the first broken one; and the keys. */
export function describeChainReport(r: ChainReport, texts: ChainReportTexts): string {
  const keys = keyLines(r.keys, r.pinned);
  if (!r.ok && r.broken) {
    const b = r.broken;
    return [`BROKEN at register ${b.registerID}, cashtransaction nr ${b.nr} (transID ${b.transID}): ${b.reason}`, ...keys].join('\n');
  }
  const total = r.registers.reduce((n, x) => n + x.verified, 0);
  const count = r.registers.reduce((n, x) => n + x.transactions, 0);
  if (count === 0) return 'OK: the file holds no cashtransaction, there is no signature to verify';
  const lines = r.registers.map((x) => `  register ${x.registerID}: ${x.transactions} cashtransactions (nr ${x.firstNr} to ${x.lastNr}), ${x.verified} signatures checked`);
  const chained = r.chained.map(
    (c) => `  register ${c.registerID}: nr ${c.nr} chained to the signature of nr ${c.previousNr} from ${PREVIOUS_SIGNATURE_FILE} (${c.previousSignature.slice(0, 16)}...: compare it with the previous export's last)`,
  );
  const notes = r.midChain.map(texts.midChain);
  const head = `OK: ${count} cashtransactions in ${r.registers.length} registers, ${total === count ? texts.all(total) : texts.partial(total, count)}`;
  return [head, ...lines, ...chained, ...notes, ...keys].join('\n');
}
