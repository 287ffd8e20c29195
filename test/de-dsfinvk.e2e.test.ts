/**
 * Germany: the DSFinV-K and GoBD exports over real HTTP. A day of receipts (two VAT rates, a discount,
 * a customer, card and foreign cash, a void, a pay-in, a training receipt, a parked receipt and one
 * registered while the TSE did not answer) is closed with a Z; the export's index.xml validates with
 * xmllint against the published GDPdU DTD (test/vectors/de-gdpdu, which the zip's DTD must equal), every
 * CSV header is the column list of its table in the DSFinV-K 2.3 table definitions (written out below
 * from the text, not from tables.ts), and every CSV is read back with an independent CSV parser and
 * checked against the columns index.xml describes (names, order, types, lengths, decimal places).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { SaxesParser } from 'saxes';
import { request } from 'undici';
import Database from 'better-sqlite3';
import { tseDir } from '../src/register/fiscal/de/tse.js';
import { vectorPath } from '../src/shared/testing.js';
import { get, post, startTestService, tempDir, unzip } from './helpers.js';

interface ColumnDef {
  name: string;
  key: boolean;
  type: 'AlphaNumeric' | 'Numeric' | 'Date';
  maxLength?: number;
  accuracy: number;
}

/** The tables index.xml describes, read with an XML parser of its own. */
function describedTables(xml: string): Map<string, ColumnDef[]> {
  const tables = new Map<string, ColumnDef[]>();
  const parser = new SaxesParser();
  const path: string[] = [];
  let url = '';
  let cols: ColumnDef[] = [];
  let col: ColumnDef | undefined;
  let textBuf = '';
  parser.on('opentag', (t) => {
    path.push(t.name);
    textBuf = '';
    if (t.name === 'Table') cols = [];
    if (t.name === 'VariableColumn' || t.name === 'VariablePrimaryKey') col = { name: '', key: t.name === 'VariablePrimaryKey', type: 'AlphaNumeric', accuracy: 0 };
    if (col && (t.name === 'AlphaNumeric' || t.name === 'Numeric' || t.name === 'Date')) col.type = t.name;
  });
  parser.on('text', (s) => (textBuf += s));
  parser.on('closetag', (t) => {
    path.pop();
    const parent = path[path.length - 1];
    if (t.name === 'URL') url = textBuf;
    if (col && t.name === 'Name' && (parent === 'VariableColumn' || parent === 'VariablePrimaryKey')) col.name = textBuf;
    if (col && t.name === 'MaxLength') col.maxLength = Number(textBuf);
    if (col && t.name === 'Accuracy') col.accuracy = Number(textBuf);
    if (col && (t.name === 'VariableColumn' || t.name === 'VariablePrimaryKey')) {
      cols.push(col);
      col = undefined;
    }
    if (t.name === 'Table') tables.set(url, cols);
  });
  parser.write(xml).close();
  return tables;
}

/** Every CSV of the zip against its description; returns the rows of each file as objects. */
function checkCsvs(files: Record<string, string>, tables: Map<string, ColumnDef[]>): Map<string, Array<Record<string, string>>> {
  const out = new Map<string, Array<Record<string, string>>>();
  for (const [file, cols] of tables) {
    const text = files[file];
    assert.ok(text !== undefined, `${file} is in the zip`);
    assert.ok(text.endsWith('\r\n') && !/[^\r]\n/.test(text), `${file}: records end with CRLF`);
    const records = parse(text, { delimiter: ';', quote: '"', record_delimiter: '\r\n' }) as string[][];
    assert.deepEqual(records[0], cols.map((c) => c.name), `${file}: header names the described columns in order`);
    const rows = records.slice(1).map((r, i) => {
      assert.equal(r.length, cols.length, `${file} record ${i + 2}: column count`);
      const row: Record<string, string> = {};
      cols.forEach((c, k) => {
        const v = r[k] as string;
        row[c.name] = v;
        if (v === '') return;
        if (c.type === 'Numeric') {
          const re = c.accuracy > 0 ? new RegExp(`^-?\\d+\\.\\d{${c.accuracy}}$`) : /^-?\d+$/;
          assert.match(v, re, `${file} record ${i + 2} ${c.name}: number with ${c.accuracy} decimals`);
        } else if (c.type === 'Date') {
          assert.match(v, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/, `${file} record ${i + 2} ${c.name}: date-time`);
        } else if (c.maxLength !== undefined) {
          assert.ok([...v].length <= c.maxLength, `${file} record ${i + 2} ${c.name}: at most ${c.maxLength} characters`);
        }
      });
      return row;
    });
    const keys = cols.filter((c) => c.key).map((c) => c.name);
    if (keys.length > 0) {
      const seen = new Set(rows.map((r) => JSON.stringify(keys.map((k) => r[k]))));
      assert.equal(seen.size, rows.length, `${file}: the primary key (${keys.join(', ')}) is unique`);
    }
    out.set(file, rows);
  }
  return out;
}

/** Per closing: the receipts' VAT (Bonkopf_USt) adds up to the closing's sums per business case (Z_GV_Typ). */
function assertVatAddsUp(rows: Map<string, Array<Record<string, string>>>): void {
  const per = (file: string, cols: string[]): Map<string, string[]> => {
    const m = new Map<string, string[][]>();
    for (const r of rows.get(file) ?? []) m.set(r.Z_NR ?? '', [...(m.get(r.Z_NR ?? '') ?? []), cols.map((c) => r[c] ?? '0')]);
    return new Map([...m].map(([z, list]) => [z, cols.map((_, i) => sum(list.map((l) => l[i] ?? '0')))]));
  };
  const bon = per('transactions_vat.csv', ['BON_BRUTTO', 'BON_NETTO', 'BON_UST']);
  const gv = per('businesscases.csv', ['Z_UMS_BRUTTO', 'Z_UMS_NETTO', 'Z_UST']);
  assert.deepEqual([...gv].sort(), [...bon].sort(), 'Z_GV_Typ = the receipts\' VAT');
}

const PUBLISHED_DTD = vectorPath('de-gdpdu', 'gdpdu-01-09-2004.dtd');

/** index.xml against the published GDPdU DTD, and the DTD shipped beside it is that one. */
function xmllint(dir: string): void {
  const r = spawnSync('xmllint', ['--noout', '--dtdvalid', PUBLISHED_DTD, 'index.xml'], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, `xmllint --dtdvalid: ${r.stderr}`);
  // the DTD's own Media content model draws a warning for every file; nothing else may be reported
  assert.deepEqual(r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('Content model of Media is not determinist')), [], r.stderr);
  assert.equal(readFileSync(join(dir, 'gdpdu-01-09-2004.dtd')).compare(readFileSync(PUBLISHED_DTD)), 0, 'the zip ships the published DTD');
}

/**
 * The column lists of the DSFinV-K 2.3 tables (chapter 3: 3.1 Einzelaufzeichnungsmodul, 3.2
 * Stammdatenmodul, 3.3 Kassenabschlussmodul) as the text defines them, in order. Stamm_TSE lists the
 * certificate in TSE_ZERTIFIKAT_I and _II; the test's TSE certificate fits them.
 */
const Z = ['Z_KASSE_ID', 'Z_ERSTELLUNG', 'Z_NR'];
const DSFINVK_2_3: Readonly<Record<string, readonly string[]>> = {
  'lines.csv': [...Z, 'BON_ID', 'POS_ZEILE', 'GUTSCHEIN_NR', 'ARTIKELTEXT', 'POS_TERMINAL_ID', 'GV_TYP', 'GV_NAME', 'INHAUS', 'P_STORNO', 'AGENTUR_ID', 'ART_NR', 'GTIN', 'WARENGR_ID', 'WARENGR', 'MENGE', 'FAKTOR', 'EINHEIT', 'STK_BR'],
  'lines_vat.csv': [...Z, 'BON_ID', 'POS_ZEILE', 'UST_SCHLUESSEL', 'POS_BRUTTO', 'POS_NETTO', 'POS_UST'],
  'itemamounts.csv': [...Z, 'BON_ID', 'POS_ZEILE', 'TYP', 'UST_SCHLUESSEL', 'PF_BRUTTO', 'PF_NETTO', 'PF_UST'],
  'subitems.csv': [...Z, 'BON_ID', 'POS_ZEILE', 'ZI_ART_NR', 'ZI_GTIN', 'ZI_NAME', 'ZI_WARENGR_ID', 'ZI_WARENGR', 'ZI_MENGE', 'ZI_FAKTOR', 'ZI_EINHEIT', 'ZI_UST_SCHLUESSEL', 'ZI_BASISPREIS_BRUTTO', 'ZI_BASISPREIS_NETTO', 'ZI_BASISPREIS_UST'],
  'transactions.csv': [...Z, 'BON_ID', 'BON_NR', 'BON_TYP', 'BON_NAME', 'TERMINAL_ID', 'BON_STORNO', 'BON_START', 'BON_ENDE', 'BEDIENER_ID', 'BEDIENER_NAME', 'UMS_BRUTTO', 'KUNDE_NAME', 'KUNDE_ID', 'KUNDE_TYP', 'KUNDE_STRASSE', 'KUNDE_PLZ', 'KUNDE_ORT', 'KUNDE_LAND', 'KUNDE_USTID', 'BON_NOTIZ'],
  'transactions_vat.csv': [...Z, 'BON_ID', 'UST_SCHLUESSEL', 'BON_BRUTTO', 'BON_NETTO', 'BON_UST'],
  'allocation_groups.csv': [...Z, 'BON_ID', 'ABRECHNUNGSKREIS'],
  'datapayment.csv': [...Z, 'BON_ID', 'ZAHLART_TYP', 'ZAHLART_NAME', 'ZAHLWAEH_CODE', 'ZAHLWAEH_BETRAG', 'BASISWAEH_BETRAG'],
  'references.csv': [...Z, 'BON_ID', 'POS_ZEILE', 'REF_TYP', 'REF_NAME', 'REF_DATUM', 'REF_Z_KASSE_ID', 'REF_Z_NR', 'REF_BON_ID'],
  'transactions_tse.csv': [...Z, 'BON_ID', 'TSE_ID', 'TSE_TANR', 'TSE_TA_START', 'TSE_TA_ENDE', 'TSE_TA_VORGANGSART', 'TSE_TA_SIGZ', 'TSE_TA_SIG', 'TSE_TA_FEHLER', 'TSE_VORGANGSDATEN'],
  'cashpointclosing.csv': [...Z, 'Z_BUCHUNGSTAG', 'TAXONOMIE_VERSION', 'Z_START_ID', 'Z_ENDE_ID', 'NAME', 'STRASSE', 'PLZ', 'ORT', 'LAND', 'STNR', 'USTID', 'Z_SE_ZAHLUNGEN', 'Z_SE_BARZAHLUNGEN'],
  'location.csv': [...Z, 'LOC_NAME', 'LOC_STRASSE', 'LOC_PLZ', 'LOC_ORT', 'LOC_LAND', 'LOC_USTID'],
  'cashregister.csv': [...Z, 'KASSE_BRAND', 'KASSE_MODELL', 'KASSE_SERIENNR', 'KASSE_SW_BRAND', 'KASSE_SW_VERSION', 'KASSE_BASISWAEH_CODE', 'KEINE_UST_ZUORDNUNG'],
  'slaves.csv': [...Z, 'TERMINAL_ID', 'TERMINAL_BRAND', 'TERMINAL_MODELL', 'TERMINAL_SERIENNR', 'TERMINAL_SW_BRAND', 'TERMINAL_SW_VERSION'],
  'pa.csv': [...Z, 'AGENTUR_ID', 'AGENTUR_NAME', 'AGENTUR_STRASSE', 'AGENTUR_PLZ', 'AGENTUR_ORT', 'AGENTUR_LAND', 'AGENTUR_STNR', 'AGENTUR_USTID'],
  'vat.csv': [...Z, 'UST_SCHLUESSEL', 'UST_SATZ', 'UST_BESCHR'],
  'tse.csv': [...Z, 'TSE_ID', 'TSE_SERIAL', 'TSE_SIG_ALGO', 'TSE_ZEITFORMAT', 'TSE_PD_ENCODING', 'TSE_PUBLIC_KEY', 'TSE_ZERTIFIKAT_I', 'TSE_ZERTIFIKAT_II'],
  'businesscases.csv': [...Z, 'GV_TYP', 'GV_NAME', 'AGENTUR_ID', 'UST_SCHLUESSEL', 'Z_UMS_BRUTTO', 'Z_UMS_NETTO', 'Z_UST'],
  'payment.csv': [...Z, 'ZAHLART_TYP', 'ZAHLART_NAME', 'Z_ZAHLART_BETRAG'],
  'cash_per_currency.csv': [...Z, 'ZAHLART_WAEH', 'ZAHLART_BETRAG_WAEH'],
};

/** Each CSV's header (its first record, as written) is the table's column list in DSFinV-K 2.3. */
function assertDsfinvkHeaders(files: Record<string, string>): void {
  const csvs = Object.keys(files).filter((f) => f.endsWith('.csv')).sort();
  assert.deepEqual(csvs, Object.keys(DSFINVK_2_3).sort(), 'the tables of DSFinV-K 2.3, no other');
  for (const [file, columns] of Object.entries(DSFINVK_2_3)) {
    const header = (parse(files[file] ?? '', { delimiter: ';', quote: '"', record_delimiter: '\r\n', to_line: 1 }) as string[][])[0];
    assert.deepEqual(header, columns, `${file}: header = the DSFinV-K 2.3 table definition`);
  }
}

async function download(url: string, work: string, name: string): Promise<{ status: number; files: Record<string, string>; dir: string; body: string }> {
  const res = await request(url);
  const buf = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200) return { status: res.statusCode, files: {}, dir: '', body: buf.toString() };
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  return { status: res.statusCode, files: await unzip(buf, dir), dir, body: '' };
}

const sum = (values: string[]): string => {
  const cents = values.reduce((s, v) => s + BigInt(v.replace('.', '').replace(/^(-?)0+(?=\d)/, '$1')), 0n);
  const neg = cents < 0n;
  const a = (neg ? -cents : cents).toString().padStart(3, '0');
  return `${neg ? '-' : ''}${a.slice(0, -2)}.${a.slice(-2)}`;
};

test('DSFinV-K: a closed day and an open one, validated against the GDPdU DTD and the table definitions', async () => {
  const svc = await startTestService();
  const work = tempDir('efr-dsfinvk-');
  try {
    const cfg = await post(`${svc.url}/cfg`, {
      Cfg: {
        Cmp: { Nam: 'Bäckerei Müller GmbH', Adr: 'Hauptstraße', AdrNr: '1', Zip: '10115', City: 'Berlin', Ctry: 'DE', TaxId: 'DE123456789', TIN: '27/123/45678' },
        Loc: { TL: '001', Nam: 'Filiale Mitte', Adr: 'Hauptstraße', AdrNr: '1', Zip: '10115', City: 'Berlin', Ctry: 'DE' },
        Trm: { TT: '1', SW: 'KassePro', SWVersion: '4.2', HW: 'Epson', HWModel: 'TM-m30', Serial: 'K-0001' },
        Dev: [{ Id: 'HH1', HW: 'Zebra', HWModel: 'TC21', Serial: 'Z99', SW: 'KassePro Mobile', SWVersion: '4.2' }],
        DE_Agentur: [{ Id: '7', Nam: 'Lotto GmbH', Adr: 'Weg 2', Zip: '10117', City: 'Berlin', Ctry: 'DE', TaxId: 'DE999999999' }],
      },
    });
    assert.equal(cfg.status, 200, cfg.text);
    const reg = async (body: object): Promise<Record<string, unknown>> => {
      const r = await post(`${svc.url}/register`, body);
      assert.equal(r.status, 200, r.text);
      return r.json;
    };
    const base = { TL: '001', TT: '1', Opr: '12', OprN: 'Anna' };
    // 1: cash, two rates
    const s1 = (await reg({ Tra: { ESR: { ...base, TN: '1', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Brot', TaxG: 'B', Amt: '3.00', SKU: 'B-1', Cat: '10', CatN: 'Backwaren' }, { _: 'Pos', PN: '2', Dsc: 'Kaffee', TaxG: 'A', Amt: '2.50', InH: '1' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '5.50' }] } } })) as { TraC: { ESR: { FN: string } } };
    // 2: started with TraS, two pieces, a discount, a customer, paid by card and in foreign cash
    const tid = ((await reg({ TraS: { ESR: { ...base } } })) as { TraSC: { Fis: { TID: number } } }).TraSC.Fis.TID;
    await reg({
      Tra: {
        ESR: {
          ...base, TN: '2', TID: String(tid), TP: 'Tisch 4',
          Ctm: { Nam: 'Firma X', Adr: 'Allee', AdrNr: '5', Zip: '80331', City: 'München', Ctry: 'DE', TaxId: 'DE111111111' },
          PosA: [{ _: 'Pos', PN: '1', Dsc: 'Torte', TaxG: 'B', Qty: '2', Pri: '10.00', Amt: '20.00' }, { _: 'Mod', PN: '1', Dsc: 'Rabatt', Amt: '-2.00' }, { _: 'Pos', PN: '2', Dsc: 'Los', TaxG: 'E', Amt: '5.00', DE_AGENTUR_ID: '7' }],
          PayA: [{ _: 'Pay', Dsc: 'EC', PayG: 'debitcard', Amt: '13.00' }, { _: 'Pay', Dsc: 'USD', PayG: 'foreign', Amt: '10.00', CC: 'USD', FAmt: '11.00' }],
        },
      },
    });
    // 3: the first one voided
    await reg({ Tra: { ESR: { ...base, TN: '3', Void: '1', RFN: s1.TraC.ESR.FN, PosA: [{ _: 'Pos', PN: '1', Dsc: 'Brot', TaxG: 'B', Amt: '-3.00' }, { _: 'Pos', PN: '2', Dsc: 'Kaffee', TaxG: 'A', Amt: '-2.50' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '-5.50' }] } } });
    // 4: money into the drawer; 5: training; 6: parked
    await reg({ Tra: { ESR: { ...base, TN: '4', NFS: 'PAYIN', T: '50.00', PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '50.00' }] } } });
    await reg({ Tra: { ESR: { ...base, TN: '5', NFS: 'TRAINING', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Übung', TaxG: 'A', Amt: '1.00' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '1.00' }] } } });
    const parked = await post(`${svc.url}/register`, { Tra: { ESR: { ...base, TN: '6', NF: 'PARK', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Kuchen', TaxG: 'B', Amt: '4.00' }], PayA: [] } } });
    assert.equal(parked.status, 200, parked.text);
    assert.match(parked.json.TraC.Fis.Code ?? '', /;Kassenbeleg-V1;AVTransfer\^/, 'a parked receipt is handed over: AVTransfer');
    // 7: the TSE does not answer
    const key = join(tseDir(svc.dataDir, 'def'), 'tse.key.pem');
    renameSync(key, `${key}.gone`);
    await reg({ Tra: { ESR: { ...base, TN: '7', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Brötchen', TaxG: 'B', Amt: '0.80' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '0.80' }] } } });
    renameSync(`${key}.gone`, key);
    const z = await reg({ Tra: { ESR: { ...base, TN: '8', NFS: 'Z' } } });
    assert.ok(JSON.stringify(z).includes('"ZI"'), 'the Z closes the day');
    // after the Z: the open day
    await reg({ Tra: { ESR: { ...base, TN: '9', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Brot', TaxG: 'B', Amt: '3.00' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '3.00' }] } } });

    // the closed day
    const closed = await download(`${svc.url}/export?type=dsfinvk`, work, 'closed');
    assert.equal(closed.status, 200, closed.body);
    xmllint(closed.dir);
    assertDsfinvkHeaders(closed.files);
    const tables = describedTables(closed.files['index.xml'] as string);
    assert.equal(tables.size, 20, 'all tables of DSFinV-K 2.x');
    const rows = checkCsvs(closed.files, tables);
    const of = (file: string): Array<Record<string, string>> => rows.get(file) ?? [];

    const bons = of('transactions.csv');
    assert.equal(bons.length, 7, 'every receipt of the day (the TraS is part of receipt 2, the Z is the closing)');
    assert.ok(bons.every((b) => b.Z_NR === '1'));
    // Z_KASSE_ID: the register's serial (Cfg.Trm.Serial), the same in every row of every table, = KASSE_SERIENNR
    for (const [file, list] of rows) for (const r of list) if ('Z_KASSE_ID' in r) assert.equal(r.Z_KASSE_ID, 'K-0001', `${file}: Z_KASSE_ID`);
    assert.deepEqual(of('cashregister.csv').map((r) => r.KASSE_SERIENNR), ['K-0001']);
    assert.deepEqual(bons.map((b) => b.BON_TYP), ['Beleg', 'Beleg', 'AVBelegstorno', 'Beleg', 'AVTraining', 'AVTransfer', 'Beleg']);
    const second = bons[1] as Record<string, string>;
    assert.equal(second.KUNDE_LAND, 'DEU', 'countries as ISO alpha-3');
    assert.equal(second.UMS_BRUTTO, '23.00');
    assert.equal((bons[2] as Record<string, string>).BON_STORNO, '1');

    const tse = of('transactions_tse.csv');
    const failedRow = tse.find((r) => r.TSE_TA_FEHLER === 'TSE ausgefallen');
    assert.ok(failedRow, 'the TSE failure is recorded');
    assert.equal(failedRow.TSE_TA_SIG, '');
    const signed = tse.filter((r) => r.TSE_TA_SIG !== '');
    assert.ok(signed.length >= 6);
    assert.ok(signed.some((r) => r.TSE_TANR === String(tid) && /^Beleg\^/.test(r.TSE_VORGANGSDATEN ?? '')));

    const refs = of('references.csv');
    assert.deepEqual(refs.map((r) => [r.REF_TYP, r.REF_BON_ID, r.REF_Z_KASSE_ID, r.REF_Z_NR]), [['Transaktion', s1.TraC.ESR.FN, 'K-0001', '1']]);
    assert.deepEqual(of('allocation_groups.csv').map((r) => r.ABRECHNUNGSKREIS), ['Tisch 4']);

    // positions: the discount is price finding; VAT split exactly
    const lines = of('lines.csv');
    const torte = lines.find((l) => l.ARTIKELTEXT === 'Torte') as Record<string, string>;
    assert.equal(torte.MENGE, '2.000');
    assert.equal(torte.STK_BR, '10.00000');
    const los = lines.find((l) => l.ARTIKELTEXT === 'Los') as Record<string, string>;
    assert.equal(los.AGENTUR_ID, '7');
    const pf = of('itemamounts.csv').filter((r) => r.BON_ID === torte.BON_ID && r.POS_ZEILE === '1');
    assert.deepEqual(pf.map((r) => [r.TYP, r.PF_BRUTTO]), [['base_amount', '20.00000'], ['discount', '-2.00000']]);
    const torteVat = of('lines_vat.csv').find((r) => r.BON_ID === torte.BON_ID && r.POS_ZEILE === '1') as Record<string, string>;
    assert.deepEqual([torteVat.UST_SCHLUESSEL, torteVat.POS_BRUTTO, torteVat.POS_NETTO, torteVat.POS_UST], ['2', '18.00000', '16.82000', '1.18000']);

    // the closing's sums agree with its receipts
    const gv = of('businesscases.csv');
    const umsatz = gv.filter((r) => r.GV_TYP === 'Umsatz');
    const revenue = bons.filter((b) => ['Beleg', 'AVBelegstorno'].includes(b.BON_TYP ?? '') && b.BON_NAME !== 'PAYIN').map((b) => b.UMS_BRUTTO ?? '0');
    assert.equal(sum(umsatz.map((r) => r.Z_UMS_BRUTTO ?? '0')), sum(revenue), 'Umsatz = the receipts');
    assert.ok(gv.some((r) => r.GV_TYP === 'Einzahlung' && r.Z_UMS_BRUTTO === '50.00'));
    assert.ok(gv.some((r) => r.AGENTUR_ID === '7' && r.Z_UMS_BRUTTO === '5.00'), 'agency sales apart');
    const closing = of('cashpointclosing.csv')[0] as Record<string, string>;
    assert.equal(closing.TAXONOMIE_VERSION, '2.3');
    assert.equal(closing.LAND, 'DEU');
    assert.equal(closing.STNR, '27/123/45678');
    const payRows = of('payment.csv');
    assert.equal(closing.Z_SE_ZAHLUNGEN, sum(payRows.map((r) => r.Z_ZAHLART_BETRAG ?? '0')));
    assert.equal(closing.Z_SE_BARZAHLUNGEN, sum(payRows.filter((r) => r.ZAHLART_TYP === 'Bar').map((r) => r.Z_ZAHLART_BETRAG ?? '0')));
    assert.deepEqual(of('cash_per_currency.csv').map((r) => [r.ZAHLART_WAEH, r.ZAHLART_BETRAG_WAEH]).sort(), [['EUR', '50.80'], ['USD', '11.00']]);
    assert.deepEqual(of('datapayment.csv').filter((r) => r.ZAHLWAEH_CODE !== '').map((r) => [r.ZAHLWAEH_CODE, r.ZAHLWAEH_BETRAG, r.BASISWAEH_BETRAG]), [['USD', '11.00', '10.00']]);
    assert.deepEqual(of('slaves.csv').map((r) => r.TERMINAL_ID), ['HH1']);
    assert.deepEqual(of('pa.csv').map((r) => [r.AGENTUR_ID, r.AGENTUR_LAND]), [['7', 'DEU']]);
    const stammTse = of('tse.csv')[0] as Record<string, string>;
    assert.match(stammTse.TSE_SERIAL ?? '', /^[0-9a-f]{64}$/);
    assert.equal(stammTse.TSE_ZEITFORMAT, 'unixTime');
    assert.ok((stammTse.TSE_ZERTIFIKAT_I ?? '').length > 100);
    assert.ok(of('vat.csv').some((r) => r.UST_SCHLUESSEL === '1' && r.UST_SATZ === '19.00'));

    assertVatAddsUp(rows);
    // more receipts after the Z: net positions (TaxN), a rate as tax group, a `;` in TT, small amounts, change
    await reg({ Tra: { ESR: { ...base, TN: '10', TaxN: '1', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Netto', TaxG: 'A', Amt: '100.00' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '119.00' }] } } });
    await reg({ Tra: { ESR: { ...base, TN: '11', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Prozent', TaxG: '19%', Amt: '11.90' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '20.00' }, { _: 'Pay', Dsc: 'Bar', PayG: 'change', Amt: '-8.10' }] } } });
    await reg({ Tra: { ESR: { TL: '001', TT: 'K;1', TN: '1', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Semikolon', TaxG: 'A', Amt: '1.00' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '1.00' }] } } });
    for (let i = 0; i < 10; i++) await reg({ Tra: { ESR: { ...base, TN: String(20 + i), PosA: [{ _: 'Pos', PN: '1', Dsc: 'Bonbon', TaxG: 'A', Amt: '0.10' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '0.10' }] } } });

    // with open=on the receipts after the Z are a closing of their own
    const open = await download(`${svc.url}/export?type=dsfinvk&open=on`, work, 'open');
    assert.equal(open.status, 200, open.body);
    xmllint(open.dir);
    assertDsfinvkHeaders(open.files);
    const openRows = checkCsvs(open.files, describedTables(open.files['index.xml'] as string));
    assert.deepEqual([...new Set((openRows.get('cashpointclosing.csv') ?? []).map((r) => r.Z_NR))], ['1', '2']);
    assert.equal((openRows.get('transactions.csv') ?? []).filter((b) => b.Z_NR === '2').length, 14);
    assertVatAddsUp(openRows);
    const openLines = openRows.get('lines_vat.csv') ?? [];
    const byText = (t: string): Record<string, string> => {
      const line = (openRows.get('lines.csv') ?? []).find((l) => l.ARTIKELTEXT === t) as Record<string, string>;
      return openLines.find((v) => v.BON_ID === line.BON_ID && v.POS_ZEILE === line.POS_ZEILE) as Record<string, string>;
    };
    assert.deepEqual([byText('Netto').POS_BRUTTO, byText('Netto').POS_UST], ['119.00000', '19.00000'], 'net positions (TaxN) as gross');
    assert.deepEqual([byText('Prozent').UST_SCHLUESSEL, byText('Prozent').POS_UST], ['1', '1.90000'], 'a rate as tax group');
    const changeRows = (openRows.get('datapayment.csv') ?? []).filter((r) => r.BASISWAEH_BETRAG === '11.90');
    assert.equal(changeRows.length, 1, 'cash and change of one receipt: one row');
    const semi = (openRows.get('transactions_tse.csv') ?? []).find((r) => r.TSE_VORGANGSDATEN === 'Beleg^1.00_0.00_0.00_0.00_0.00^1.00:Bar');
    assert.ok(semi && /^\d+$/.test(semi.TSE_TANR ?? ''), 'a `;` in TT does not shift the TSE fields');
    // a period without closings, and bad parameters
    const none = await get(`${svc.url}/export?type=dsfinvk&from=2001-01-01&till=2001-12-31`);
    assert.equal(none.status, 404, none.text);
    assert.equal((await get(`${svc.url}/export?type=dsfinvk&open=maybe`)).status, 400);
    assert.equal((await get(`${svc.url}/export?type=tse&open=on`)).status, 400);

    // GoBD: the whole journal, described the same way
    const gobd = await download(`${svc.url}/export?type=gobd`, work, 'gobd');
    assert.equal(gobd.status, 200, gobd.body);
    xmllint(gobd.dir);
    const g = checkCsvs(gobd.files, describedTables(gobd.files['index.xml'] as string));
    const journal = g.get('journal.csv') ?? [];
    const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
    const count = (db.prepare('SELECT count(*) AS n FROM journal').get() as { n: number }).n;
    db.close();
    assert.equal(journal.length, count, 'every journal record');
    assert.deepEqual(journal.map((r) => Number(r.SQ)), journal.map((_, i) => i + 1), 'gapless');
    assert.ok(journal.some((r) => r.TYP === 'TraS') && journal.some((r) => r.TYP === 'Cfg'));
    assert.ok(journal.every((r) => /^[0-9a-f]{64}$/.test(r.HASH ?? '') && JSON.parse(r.DATEN ?? '') !== null));
    assert.ok((g.get('positions.csv') ?? []).some((r) => r.BEZEICHNUNG === 'Torte' && r.MENGE === '2.000' && r.BETRAG === '20.00'));
    assert.ok(gobd.files['journal-public-key.pem']?.includes('BEGIN PUBLIC KEY'));
  } finally {
    await svc.close();
  }
});

test('DSFinV-K and GoBD are German exports', async () => {
  const svc = await startTestService();
  try {
    await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo', Ctry: 'AT', TaxId: 'ATU12345678' } } });
    const r = await get(`${svc.url}/export?type=dsfinvk`);
    assert.equal(r.status, 400);
    assert.match(r.text, /dsfinvk is not an export of registers of country AT \(Cfg.Cmp.Ctry\); it is one of registers of DE/);
  } finally {
    await svc.close();
  }
});
