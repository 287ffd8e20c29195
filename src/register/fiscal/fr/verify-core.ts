/**
 * The one verification of the NF525 signature chains, used by `efr verify --country fr` and copied
 * into the `verify.mjs` of every `nf525-jou` export (from the compiled text of these functions,
 * as the journal export does with src/register/journal/export/verify-core.ts).
 *
 * Therefore every exported function here is SELF-CONTAINED: it uses only its parameters, the other
 * functions of this file (copied along) and the built-in globals of JavaScript and Node.
 */
import type { VerifyCrypto } from '../../journal/export/verify-core.js';

/** One signed text of an export: the record (SQ) that carries it, the text, its signature (base64url). */
export interface FrItem {
  sq: number;
  payload: string;
  signature: string;
  /** the fields as the export lists them next to the signed text (export.xml), to compare */
  fields?: Record<string, string>;
  /** chain, number and previous signature as the export lists them (export.xml), to compare */
  chain?: string;
  n?: string;
  previous?: string;
  /** the record's date as the export lists it (export.xml), to compare with the signed D field */
  d?: string;
}

export interface FrReport {
  ok: boolean;
  /** signed texts that verified */
  count: number;
  /** per chain letter, the first and last number seen */
  chains: Record<string, { first: number; last: number }>;
  broken?: { sq: number; chain: string; n: string; reason: string };
}

/** The names of the fields between the number and the previous signature, per chain letter. */
export function frFieldNames(kind: string): string[] | undefined {
  switch (kind) {
    case 'T':
    case 'F':
    case 'M':
      return ['RN', 'Id', 'FN', 'D', 'Operation', 'Total', 'Taxes'];
    case 'D':
      return ['RN', 'Id', 'FN', 'D', 'Original', 'Count'];
    case 'G':
      return ['RN', 'Period', 'PeriodId', 'FN', 'D', 'Count', 'Total', 'Taxes', 'GT', 'GTAbs'];
    case 'E':
      return ['RN', 'Code', 'Label', 'D', 'Detail'];
    default:
      return undefined;
  }
}

/** The signed text split into its fields (`%3B` and `%25` read back as `;` and `%`). */
export function frSplit(payload: string): string[] {
  return payload.split(';').map((v) => v.replace(/%3B/g, ';').replace(/%25/g, '%'));
}

/** The signed texts a journal record carries: its Fis.Payload (FR1) and the JET entries of Fis.FR_JET. */
export function frItemsOfRecord(sq: number, data: string): FrItem[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return [];
  }
  const fis = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).Fis : undefined;
  if (typeof fis !== 'object' || fis === null) return [];
  const f = fis as Record<string, unknown>;
  const out: FrItem[] = [];
  if (typeof f.Payload === 'string' && f.Payload.startsWith('FR1;')) out.push({ sq, payload: f.Payload, signature: typeof f.Signature === 'string' ? f.Signature : '' });
  const jet = Array.isArray(f.FR_JET) ? f.FR_JET : f.FR_JET !== undefined ? [f.FR_JET] : [];
  for (const e of jet) {
    if (typeof e !== 'object' || e === null) continue;
    const ev = e as Record<string, unknown>;
    out.push({ sq, payload: typeof ev.Payload === 'string' ? ev.Payload : '', signature: typeof ev.Signature === 'string' ? ev.Signature : '' });
  }
  return out;
}

/**
 * Verifies the chains: every signed text has the FR1 layout of its chain; numbers follow each other
 * per chain; each names the signature of the one before (the first of a chain: GENESIS); every
 * signature verifies with the public key. `complete`: the export starts with the register's first
 * record, so every chain must start at number 1 (a period export may start in the middle).
 */
export function verifyFrItems(items: Iterable<FrItem>, publicKeyPem: string, crypto: VerifyCrypto, complete: boolean): FrReport {
  const chains: Record<string, { first: number; last: number }> = {};
  const heads: Record<string, { n: number; sig: string }> = {};
  let count = 0;
  let lastSq = 0;
  const fail = (sq: number, chain: string, n: string, reason: string): FrReport => ({ ok: false, count, chains, broken: { sq, chain, n, reason } });
  let key;
  try {
    key = crypto.createPublicKey(publicKeyPem);
  } catch {
    return fail(0, '', '', 'the public key cannot be read');
  }
  for (const item of items) {
    const parts = frSplit(item.payload);
    const kind = parts[1] ?? '';
    const nText = parts[2] ?? '';
    if (parts[0] !== 'FR1') return fail(item.sq, kind, nText, 'not an FR1 signed string');
    const names = frFieldNames(kind);
    if (!names) return fail(item.sq, kind, nText, `unknown chain "${kind}"`);
    if (parts.length !== names.length + 4) return fail(item.sq, kind, nText, `the signed string has ${parts.length} fields, chain ${kind} has ${names.length + 4}`);
    if (!/^[1-9]\d{0,15}$/.test(nText)) return fail(item.sq, kind, nText, 'the number is not a positive integer');
    const n = Number(nText);
    const prev = parts[parts.length - 1] ?? '';
    if (item.chain !== undefined && item.chain !== kind) return fail(item.sq, kind, nText, `Chain "${item.chain}" differs from the signed string`);
    if (item.n !== undefined && item.n !== nText) return fail(item.sq, kind, nText, `N "${item.n}" differs from the signed string`);
    if (item.previous !== undefined && item.previous !== prev) return fail(item.sq, kind, nText, 'Previous differs from the previous signature in the signed string');
    // the records in journal order; JET entries follow the other signed text of the same record
    if (item.sq < lastSq || (item.sq === lastSq && kind !== 'E')) return fail(item.sq, kind, nText, `SQ ${item.sq} after SQ ${lastSq}: the records are not in ascending SQ order`);
    lastSq = item.sq;
    if (item.d !== undefined) {
      const signedD = parts[3 + names.indexOf('D')] ?? '';
      if (item.d !== signedD) return fail(item.sq, kind, nText, `D "${item.d}" differs from the signed D field "${signedD}"`);
    }
    if (item.fields) {
      for (let i = 0; i < names.length; i++) {
        const name = names[i] ?? '';
        const signed = parts[3 + i] ?? '';
        if (item.fields[name] !== signed) return fail(item.sq, kind, nText, `field ${name} "${item.fields[name] ?? '(missing)'}" differs from the signed string "${signed}"`);
      }
      if (Object.keys(item.fields).length !== names.length) return fail(item.sq, kind, nText, 'the record lists fields the signed string does not have');
    }
    const head = heads[kind];
    if (!head) {
      if (n === 1 && prev !== 'GENESIS') return fail(item.sq, kind, nText, 'the first record of the chain must name GENESIS as previous signature');
      if (n > 1 && complete) return fail(item.sq, kind, nText, `the chain starts at n° ${n}; n° 1 to ${n - 1} are missing`);
    } else {
      if (n !== head.n + 1) return fail(item.sq, kind, nText, `n° ${n} follows n° ${head.n}: a record is missing or out of order`);
      if (prev !== head.sig) return fail(item.sq, kind, nText, `the previous signature is not the signature of n° ${head.n}`);
    }
    let good = false;
    try {
      good = crypto.verify('sha256', Buffer.from(item.payload, 'utf8'), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(item.signature, 'base64url'));
    } catch {
      good = false;
    }
    if (!good) return fail(item.sq, kind, nText, 'the signature does not verify with the public key');
    heads[kind] = { n, sig: item.signature };
    const c = chains[kind];
    chains[kind] = { first: c ? c.first : n, last: n };
    count += 1;
  }
  return { ok: true, count, chains };
}

export function describeFrReport(r: FrReport): string {
  const names: Record<string, string> = { T: 'tickets', F: 'invoices', M: 'training', D: 'duplicates', G: 'grand totals', E: 'JET' };
  const chains = Object.keys(r.chains)
    .sort()
    .map((k) => {
      const c = r.chains[k] as { first: number; last: number };
      return `${k} (${names[k] ?? k}) n° ${c.first}..${c.last}`;
    })
    .join(', ');
  if (r.ok) return `OK: ${r.count} signed records verify; chains ${chains || '(none)'}`;
  const b = r.broken as { sq: number; chain: string; n: string; reason: string };
  if (b.chain === 'SEAL') return `BROKEN (seal, last record SQ ${b.sq}): ${b.reason}`;
  return `BROKEN at SQ ${b.sq} (chain ${b.chain || '?'} n° ${b.n || '?'}): ${b.reason}`;
}

/**
 * The seal of jou.zip (`fr-seal.json`): `FR1;SEALJOU;<RN>;<exportedAt>;<Complete>;<From>;<Till>;<firstSQ>;<lastSQ>;<chain>:<n>|...`
 * signed with the register key (`fr-public.pem`) or, when it could not sign, the instance key
 * (`public.pem`). It names the manifest's range and the last number of every NF525 chain, which
 * the unsigned manifest alone cannot prove: records removed at the end are seen. A zip without it
 * is not OK.
 */
export function verifyFrJouSeal(sealText: string | undefined, manifestText: string, chains: Record<string, { first: number; last: number }>, frKeyPem: string, instanceKeyPem: string, crypto: VerifyCrypto): { ok: boolean; text: string } {
  const bad = (reason: string): { ok: boolean; text: string } => ({ ok: false, text: `BROKEN (seal): ${reason}` });
  if (sealText === undefined) return bad('not sealed (fr-seal.json missing): the end of the journal and of the chains cannot be checked');
  let seal: Record<string, unknown>;
  let manifest: Record<string, unknown>;
  try {
    seal = JSON.parse(sealText);
    manifest = JSON.parse(manifestText);
  } catch {
    return bad('fr-seal.json or manifest.json is not JSON');
  }
  const payload = typeof seal.payload === 'string' ? seal.payload : '';
  const instance = seal.key === 'instance';
  let good = false;
  try {
    good = crypto.verify('sha256', Buffer.from(payload, 'utf8'), { key: crypto.createPublicKey(instance ? instanceKeyPem : frKeyPem), dsaEncoding: 'ieee-p1363' }, Buffer.from(typeof seal.signature === 'string' ? seal.signature : '', 'base64url'));
  } catch {
    good = false;
  }
  if (!good) return bad(`the seal's signature does not verify with ${instance ? 'public.pem (instance key)' : 'fr-public.pem'}`);
  const p = payload.split(';').map((v) => v.replace(/%3B/g, ';').replace(/%25/g, '%'));
  if (p.length !== 10 || p[0] !== 'FR1' || p[1] !== 'SEALJOU') return bad('not an FR1;SEALJOU signed text');
  const s = (v: unknown): string => (v === undefined || v === null ? '' : String(v));
  const expected: Array<[string, string, string]> = [
    ['RN', s(manifest.RN), p[2] ?? ''],
    ['exportedAt', s(manifest.exportedAt), p[3] ?? ''],
    ['Complete', manifest.firstSQ === 1 ? '1' : '0', p[4] ?? ''],
    ['from', s(manifest.from), p[5] ?? ''],
    ['till', s(manifest.till), p[6] ?? ''],
    ['firstSQ', s(manifest.firstSQ), p[7] ?? ''],
    ['lastSQ', s(manifest.lastSQ), p[8] ?? ''],
  ];
  for (const [name, inFile, inSeal] of expected) {
    if (inFile !== inSeal) return bad(`manifest ${name} ${JSON.stringify(inFile)} differs from the sealed ${JSON.stringify(inSeal)}${name === 'lastSQ' ? ': records were removed at the end' : ''}`);
  }
  const present = Object.keys(chains).sort().map((k) => `${k}:${chains[k]?.last ?? ''}`).join('|');
  if (present !== (p[9] ?? '')) return bad(`the chains end at ${present || '(none)'}, the seal names ${p[9] || '(none)'}: records were removed`);
  return { ok: true, text: `OK: sealed with ${instance ? 'the instance key (public.pem; the register key could not sign)' : 'the register key (fr-public.pem)'}` };
}
