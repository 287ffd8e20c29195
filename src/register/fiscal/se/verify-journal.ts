/**
 * `efr verify --country se --key <control unit's public key> <jou.zip>`: a journal export (GET /export?type=jou)
 * of a Swedish register. The journal's own check first (its hash chain and signatures, with its public.pem);
 * then the control unit's signatures of its receipts and copies, rebuilt from what each record's Fis keeps of
 * the control data (RegisterID, CompanyIdent, TransDate, TransTime, FN, ReceiptType, AmntIn, AmntEx, Vat;
 * a copy's RFN, D and CopySignature), by the same rules as the SAF-T export (verify.ts), after checking that
 * each receipt's ESR gives the values its Fis keeps. The journal export
 * carries no control unit key: it is given with --key (the SAF-T export has it), or lies beside the zip as
 * `control-unit-<id>.pem`.
 */
import { readFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { openPromise } from 'yauzl';
import { describeReport } from '../../journal/export/verify-core.js';
import { verifyZip } from '../../journal/export/verify-zip.js';
import { type Obj, str } from '../../codec/index.js';
import { signedAmounts } from '../saft-cash-register/cash-transaction.js';
import type { PinnedKey } from '../saft-cash-register/pinned-keys.js';
import { vatOf } from './control-data.js';
import type { SeCashTransaction, SeFile, SeRegister } from './read-file.js';
import { COPY_TEXT } from './saft-xml.js';
import { describeSeReport, keyLookup, keysBeside, readPinnedEcKeys, verifySwedishFile } from './verify.js';
import type { VerifyOutcome } from '../verifiers.js';

type Fields = Record<string, unknown>;
const s = (o: Fields | undefined, k: string): string => (typeof o?.[k] === 'string' ? (o[k] as string) : '');

/** True when the file is a journal export (a zip with a manifest.json). */
export async function isJournalZip(path: string): Promise<boolean> {
  try {
    if (readFileSync(path).subarray(0, 2).toString('latin1') !== 'PK') return false;
    const zip = await openPromise(path, { lazyEntries: true, autoClose: false });
    try {
      for await (const entry of zip.eachEntry()) if (entry.fileName === 'manifest.json' || entry.fileName.endsWith('/manifest.json')) return true;
      return false;
    } finally {
      zip.close();
    }
  } catch {
    // not a readable zip: the SAF-T verifier says why
    return false;
  }
}

/**
 * What a receipt's ESR (what the journal shows of it) says of the signed fields its Fis keeps, when it says
 * otherwise: the control unit's signature over the Fis proves nothing of an ESR that does not agree with it.
 */
function esrDisagrees(esr: unknown, fis: Fields): string | undefined {
  if (typeof esr !== 'object' || esr === null || Array.isArray(esr)) return 'is missing';
  const e = esr as Obj;
  const { amntIn, amntEx } = signedAmounts(e);
  const d = str(e, 'D') ?? '';
  const shown: ReadonlyArray<[string, string, string]> = [
    ['AmntIn', 'T', amntIn], ['AmntEx', 'T less its VAT', amntEx], ['Vat', 'TaxA', vatOf(e)], ['TransDate', 'D', d.slice(0, 10)], ['TransTime', 'D', d.slice(11, 19)],
  ];
  for (const [key, from, value] of shown) if (value !== s(fis, key)) return `${from} gives ${key} ${value}, but ${s(fis, key)} was signed`;
  return undefined;
}

/** The receipts and copies of journal records' data, as the SAF-T file would hold them; a text when the records disagree on the company. */
export function swedishFileOfRecords(records: readonly Fields[]): SeFile | string {
  let companyIdent: string | undefined;
  const registers = new Map<string, SeRegister>();
  const byNr = new Map<string, SeCashTransaction>();
  const copies: Array<{ register: string; sq: string; fis: Fields }> = [];
  for (const r of records) {
    if (r._ !== 'Tra' || typeof r.Fis !== 'object' || r.Fis === null) continue;
    const fis = r.Fis as Fields;
    if (s(fis, 'CopySignature')) {
      copies.push({ register: s(fis, 'RegisterID'), sq: String(r.SQ ?? ''), fis });
      continue;
    }
    if (!s(fis, 'Signature') || !s(fis, 'ReceiptType') || !s(fis, 'FN')) continue;
    const shown = esrDisagrees(r.ESR, fis);
    if (shown) return `receipt nr ${s(fis, 'FN')} (SQ ${String(r.SQ ?? '')}): its ESR ${shown}`;
    const company = s(fis, 'CompanyIdent');
    if (companyIdent !== undefined && company !== companyIdent) return `the receipts were signed for organisation numbers ${companyIdent} and ${company}: verify them separately`;
    companyIdent = company;
    const id = s(fis, 'RegisterID');
    const reg = registers.get(id) ?? { registerID: id, transactions: [], copies: [] };
    registers.set(id, reg);
    const t: SeCashTransaction = {
      nr: s(fis, 'FN'), transID: s(fis, 'TransID'), transDate: s(fis, 'TransDate'), transTime: s(fis, 'TransTime'), transAmntIn: s(fis, 'AmntIn'), transAmntEx: s(fis, 'AmntEx'),
      signature: s(fis, 'Signature'), keyVersion: s(fis, 'ControlUnit'), trainingID: s(fis, 'ReceiptType') === 'ovning' ? 'true' : 'false', vat: s(fis, 'Vat') ? s(fis, 'Vat').split(',') : [],
    };
    reg.transactions.push(t);
    byNr.set(`${id}\u0000${t.nr}`, t);
  }
  for (const c of copies) {
    const rfn = s(c.fis, 'RFN');
    const reg = registers.get(c.register) ?? { registerID: c.register, transactions: [], copies: [] };
    registers.set(c.register, reg);
    const d = s(c.fis, 'D');
    reg.copies.push({
      eventID: c.sq, transID: byNr.get(`${c.register}\u0000${rfn}`)?.transID ?? '', eventDate: d.slice(0, 10), eventTime: d.slice(11, 19),
      eventText: `${COPY_TEXT} ${rfn}; kontrollenhet ${s(c.fis, 'ControlUnit')}; signatur ${s(c.fis, 'CopySignature')}`,
    });
  }
  return { companyIdent: companyIdent ?? '', registers: [...registers.values()] };
}

/** Verifies a journal export zip: the journal, then the control unit's signatures with `keyFor` and the pinned keys. */
export async function verifySwedishJournal(path: string, keyFor: (id: string) => KeyObject | string, pinned: readonly PinnedKey[]): Promise<VerifyOutcome> {
  const records: Fields[] = [];
  const journal = await verifyZip(path, (r) => {
    try {
      records.push(JSON.parse(r.data) as Fields);
    } catch {
      // the journal check names a record that is not JSON
    }
  });
  const file = swedishFileOfRecords(records);
  if (typeof file === 'string') return { ok: false, text: `journal: ${describeReport(journal)}\ncontrol unit: BROKEN: ${file}` };
  const report = verifySwedishFile(file, keyFor, { pinned });
  return { ok: journal.ok && report.ok, text: `journal: ${describeReport(journal)}\ncontrol unit: ${describeSeReport(report)}` };
}

/** `efr verify --country se [--key <pem>]... <jou.zip>`: the keys from --key, or beside the zip. */
export async function verifySwedishJournalFile(path: string, options: { keys?: readonly string[] } = {}): Promise<VerifyOutcome> {
  const pinned = readPinnedEcKeys(options.keys ?? []);
  if (typeof pinned === 'string') return { ok: false, text: `BROKEN: ${pinned}` };
  return verifySwedishJournal(path, keyLookup(keysBeside(path), `beside ${path} (a journal export carries no control unit key: give it with --key)`), pinned);
}
