/**
 * GET /export?type=saft: the register's documents of the period (by InvoiceDate, `from`/`till`) as
 * export.zip with the SAF-T PT file `saft.xml`, the public key `public-key.pem` that verifies the hashes
 * and `chain-start.json`: for each series whose first document in the file is not its number 1, the hash
 * of the document before it (which the SAF-T file does not hold), so that the file verifies on its own.
 * A file covers one fiscal year: a period across a year end is refused, and so is a selection without
 * from/till that holds documents of several years (the caller names the year it wants).
 */
import { ZipFile } from 'yazl';
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, lines, obj, str } from '../../codec/index.js';
import { formatLocalDateTime, nextDay } from '../../esr/datetime.js';
import type { FindQuery } from '../../journal/types.js';
import type { ExportFile, ExportRequest } from '../module.js';
import { type DocType, amountsOf, customerOf } from './document.js';
import { ensureKey, publicKeyPem } from './keys.js';
import { companyNif } from './nif.js';
import { type SaftDocument, saftXml } from './saft.js';
import { certificateOf } from './series.js';

const TYPES: readonly string[] = ['FS', 'FT', 'FR', 'NC'];

interface Exported extends SaftDocument {
  seriesKey: string;
  number: number;
  previousHash: string;
}

/** A journal record's document, when it is one. */
export function documentOfRecord(data: Obj): Exported | undefined {
  const fis = obj(data, 'Fis');
  const esr = obj(data, 'ESR');
  if (!fis || !esr) return undefined;
  const type = str(fis, 'Type') ?? '';
  const payload = str(fis, 'Payload');
  const hash = str(fis, 'Signature');
  if (!TYPES.includes(type) || !payload || !hash) return undefined;
  const [invoiceDate, systemEntryDate, invoiceNo, , previousHash] = payload.split(';');
  if (!invoiceDate || !systemEntryDate || !invoiceNo || previousHash === undefined) return undefined;
  const cut = invoiceNo.lastIndexOf('/');
  const atcud = lines(fis, 'Tag').find((t) => str(t, 'Name') === 'ATCUD');
  const docType = type as DocType;
  // the corrected document as the credit note printed it (found in the journal, or the RFN sent)
  const ref = lines(fis, 'Tag').find((t) => str(t, 'Name') === 'Ref');
  const rfn = ref ? str(ref, 'Value') : undefined;
  const doc: Exported = {
    type: docType,
    invoiceNo,
    atcud: (atcud ? str(atcud, 'Value') : undefined) ?? '0',
    invoiceDate,
    systemEntryDate,
    hash,
    hashControl: '1',
    sourceId: ((str(esr, 'Opr') ?? str(esr, 'OprN') ?? '').trim() || 'efr').slice(0, 30),
    customer: customerOf(esr),
    amounts: amountsOf(esr, docType),
    seriesKey: invoiceNo.slice(0, cut),
    number: Number(invoiceNo.slice(cut + 1)),
    previousHash,
  };
  if (docType === 'NC' && rfn) {
    doc.reference = { invoiceNo: rfn, reason: ((str(esr, 'Rsn') ?? '').trim() || (str(esr, 'Void') === '1' ? 'Anulação' : 'Devolução')).slice(0, 50) };
  }
  return doc;
}

/** Cfg.Cmp.Zip as the NNNN-NNN that SAF-T PT needs (seven digits get their hyphen). */
export function postalCodeOf(zip: string | undefined): string | undefined {
  const z = (zip ?? '').trim();
  if (/^\d{4}-\d{3}$/.test(z)) return z;
  if (/^\d{7}$/.test(z)) return `${z.slice(0, 4)}-${z.slice(4)}`;
  return undefined;
}

export async function exportSaft(req: ExportRequest): Promise<ExportFile> {
  const { ctx, reg, period } = req;
  const cmp = obj(reg.state.cfg, 'Cmp') ?? {};
  const nif = companyNif(str(cmp, 'TaxId'));
  if (!nif) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.TaxId', detail: 'the company NIF (nine digits with check digit) is the TaxRegistrationNumber of SAF-T PT' });
  const postalCode = postalCodeOf(str(cmp, 'Zip'));
  if (!postalCode) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.Zip', detail: `SAF-T PT needs the company's postal code as NNNN-NNN, got "${str(cmp, 'Zip') ?? ''}"` });
  // a SAF-T PT file is of one fiscal year (its header has one FiscalYear)
  if (period.from !== undefined && period.till !== undefined && period.from.slice(0, 4) !== period.till.slice(0, 4)) {
    throw new FiscalError('#INVALID_VALUE', { field: 'till', detail: `${period.till} is not in the year of from (${period.from}): a SAF-T PT file covers one fiscal year; export each year on its own` });
  }
  const query: FindQuery = { type: 'Tra', sort: 'asc', ...(period.from ? { from: period.from } : {}), ...(period.till ? { before: nextDay(period.till) } : {}) };
  const docs: Exported[] = [];
  for await (const r of ctx.store.find(reg.state.rid, query, 500)) {
    const doc = documentOfRecord(JSON.parse(r.data) as Obj);
    if (doc) docs.push(doc);
  }
  if (docs.length === 0) {
    const when = period.from !== undefined || period.till !== undefined ? ` dated ${period.from ?? '...'} to ${period.till ?? '...'}` : '';
    throw new FiscalError('#NOT_FOUND', { value: `documents (FS, FT, FR, NC) of ${reg.state.rn}${when}` });
  }
  // by series, then number: each chain in its order
  docs.sort((a, b) => (a.seriesKey === b.seriesKey ? a.number - b.number : a.seriesKey < b.seriesKey ? -1 : 1));
  const chainStart: Record<string, string> = {};
  for (const d of docs) if (!(d.seriesKey in chainStart)) chainStart[d.seriesKey] = d.previousHash;
  for (const [k, v] of Object.entries(chainStart)) if (v === '') delete chainStart[k];
  const dates = docs.map((d) => d.invoiceDate).sort();
  const years = [...new Set(dates.map((d) => d.slice(0, 4)))];
  if (years.length > 1) {
    // without a period (or with one bound only) the documents of several years are not mixed in one file
    const field = period.from !== undefined ? 'till' : period.till !== undefined ? 'from' : 'from, till';
    throw new FiscalError('#INVALID_VALUE', { field, detail: `the documents selected are of ${years.join(', ')}: a SAF-T PT file covers one fiscal year; give from and till within one year, e.g. from=${years[years.length - 1] as string}-01-01&till=${years[years.length - 1] as string}-12-31` });
  }
  const year = years[0] as string;
  // the period of the header, within the documents' year
  const startDate = period.from !== undefined ? (period.from.startsWith(year) ? period.from : `${year}-01-01`) : (dates[0] as string);
  const endDate = period.till !== undefined ? (period.till.startsWith(year) ? period.till : `${year}-12-31`) : (dates[dates.length - 1] as string);
  const attributes = ctx.profiles.settings(reg.state.rn).raw;
  const text = (k: string): string => (str(cmp, k) ?? '').trim();
  const xml = saftXml(
    {
      companyNif: nif,
      companyName: text('Nam').slice(0, 100) || 'Desconhecido',
      address: [text('Adr'), text('AdrNr')].filter(Boolean).join(' ').slice(0, 210) || 'Desconhecido',
      city: text('City').slice(0, 50) || 'Desconhecido',
      postalCode,
      startDate,
      endDate,
      dateCreated: formatLocalDateTime(ctx.clock.now()).slice(0, 10),
      taxEntity: 'Global',
      producerNif: (attributes.get('fiscal_producertaxid') ?? nif).slice(0, 30),
      certificate: certificateOf(attributes),
      productId: 'efr fiscal register/efr',
      productVersion: ctx.version.slice(0, 30),
    },
    docs,
  );
  // the key that signed them (never a new one: it would not verify them)
  await ensureKey(ctx.dataDir, true, reg.state.country['pt|key']);
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from(xml, 'utf8'), 'saft.xml');
  zip.addBuffer(Buffer.from(publicKeyPem(ctx.dataDir)), 'public-key.pem');
  zip.addBuffer(Buffer.from(`${JSON.stringify(chainStart, null, 2)}\n`), 'chain-start.json');
  zip.end();
  return { body: zip.outputStream, file: 'export.zip', contentType: 'application/zip' };
}
