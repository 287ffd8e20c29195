/**
 * `efr verify --country es export.zip`: our own verifier of a VeriFactu export (GET /export?type=verifactu).
 * For every record in file order: the XML is an AEAT record, its fingerprint recomputed from its fields
 * equals its Huella, its Encadenamiento names the previous record of the same issuer (id and fingerprint;
 * PrimerRegistro only for an issuer's first), and for a registration the breakdown adds up to CuotaTotal
 * and ImporteTotal (those are hashed, the breakdown is not). It names the first record that fails.
 */
import { openPromise } from 'yauzl';
import { SaxesParser } from 'saxes';
import { type Dec, ZERO, add, eq, fmt, parseDec } from '../../../shared/money.js';
import { readText } from '../../journal/export/verify-zip.js';
import type { VerifyOutcome } from '../verifiers.js';
import { altaString, anulacionString, huella } from './huella.js';

interface Node {
  name: string;
  children: Node[];
  text: string;
}

function parse(xml: string): Node {
  const root: Node = { name: '#root', children: [], text: '' };
  const stack: Node[] = [root];
  const parser = new SaxesParser({ xmlns: false });
  parser.on('opentag', (tag) => {
    const node: Node = { name: tag.name.slice(tag.name.indexOf(':') + 1), children: [], text: '' };
    (stack[stack.length - 1] as Node).children.push(node);
    stack.push(node);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('text', (t) => {
    (stack[stack.length - 1] as Node).text += t;
  });
  parser.write(xml).close();
  return root;
}

function child(n: Node | undefined, name: string): Node | undefined {
  return n?.children.find((c) => c.name === name);
}

function find(n: Node, name: string): Node | undefined {
  if (n.name === name) return n;
  for (const c of n.children) {
    const f = find(c, name);
    if (f) return f;
  }
  return undefined;
}

const text = (n: Node | undefined, name: string): string => child(n, name)?.text ?? '';
const dec = (s: string): Dec => parseDec(s) ?? ZERO;

interface Head {
  numSerie: string;
  fecha: string;
  huella: string;
}

export interface EsReport {
  ok: boolean;
  records: number;
  altas: number;
  anulaciones: number;
  /** issuers whose first record in the file continues a chain that started before the export */
  continued: string[];
  broken?: { index: number; file: string; id: string; reason: string };
}

/** Verifies the records (file name, XML text) in order. */
export function verifyRecords(files: ReadonlyArray<{ name: string; xml: string }>): EsReport {
  const heads = new Map<string, Head>();
  const report: EsReport = { ok: true, records: 0, altas: 0, anulaciones: 0, continued: [] };
  for (const [i, f] of files.entries()) {
    const fail = (id: string, reason: string): EsReport => ({ ...report, ok: false, broken: { index: i + 1, file: f.name, id, reason } });
    let tree: Node;
    try {
      tree = parse(f.xml);
    } catch (e) {
      return fail('?', `not well-formed XML: ${e instanceof Error ? e.message : String(e)}`);
    }
    const alta = find(tree, 'RegistroAlta');
    const anul = alta ? undefined : find(tree, 'RegistroAnulacion');
    const rec = alta ?? anul;
    if (!rec) return fail('?', 'neither a RegistroAlta nor a RegistroAnulacion');
    const idf = child(rec, 'IDFactura');
    const nif = alta ? text(idf, 'IDEmisorFactura') : text(idf, 'IDEmisorFacturaAnulada');
    const numSerie = alta ? text(idf, 'NumSerieFactura') : text(idf, 'NumSerieFacturaAnulada');
    const fecha = alta ? text(idf, 'FechaExpedicionFactura') : text(idf, 'FechaExpedicionFacturaAnulada');
    const id = `${alta ? '' : 'anulación of '}${numSerie}`;
    const chain = child(rec, 'Encadenamiento');
    const anterior = child(chain, 'RegistroAnterior');
    const prevHuella = anterior ? text(anterior, 'Huella') : '';
    const generated = text(rec, 'FechaHoraHusoGenRegistro');
    const hashed = alta
      ? altaString({ idEmisorFactura: nif, numSerieFactura: numSerie, fechaExpedicionFactura: fecha, tipoFactura: text(rec, 'TipoFactura'), cuotaTotal: text(rec, 'CuotaTotal'), importeTotal: text(rec, 'ImporteTotal'), huellaAnterior: prevHuella, fechaHoraHusoGenRegistro: generated })
      : anulacionString({ idEmisorFacturaAnulada: nif, numSerieFacturaAnulada: numSerie, fechaExpedicionFacturaAnulada: fecha, huellaAnterior: prevHuella, fechaHoraHusoGenRegistro: generated });
    const own = text(rec, 'Huella');
    if (text(rec, 'TipoHuella') !== '01') return fail(id, `TipoHuella "${text(rec, 'TipoHuella')}" is not 01 (SHA-256)`);
    if (huella(hashed) !== own) return fail(id, `the fingerprint does not match the record's fields (recomputed ${huella(hashed)}, recorded ${own})`);
    const head = heads.get(nif);
    if (!anterior) {
      if (text(chain, 'PrimerRegistro') !== 'S') return fail(id, 'no Encadenamiento (neither PrimerRegistro nor RegistroAnterior)');
      if (head) return fail(id, `PrimerRegistro, but ${head.numSerie} came before it`);
    } else if (head) {
      if (text(anterior, 'IDEmisorFactura') !== nif || text(anterior, 'NumSerieFactura') !== head.numSerie || text(anterior, 'FechaExpedicionFactura') !== head.fecha) {
        return fail(id, `RegistroAnterior names ${text(anterior, 'NumSerieFactura')} ${text(anterior, 'FechaExpedicionFactura')}, but the previous record is ${head.numSerie} ${head.fecha}`);
      }
      if (prevHuella !== head.huella) return fail(id, 'the previous fingerprint (RegistroAnterior/Huella) is not the Huella of the record before it');
    } else {
      report.continued.push(nif);
    }
    if (alta) {
      let cuota = ZERO;
      let total = ZERO;
      for (const d of child(rec, 'Desglose')?.children ?? []) {
        const c = add(dec(text(d, 'CuotaRepercutida')), dec(text(d, 'CuotaRecargoEquivalencia')));
        cuota = add(cuota, c);
        total = add(total, add(dec(text(d, 'BaseImponibleOimporteNoSujeto')), c));
      }
      if (!eq(cuota, dec(text(rec, 'CuotaTotal')))) return fail(id, `the breakdown's tax adds up to ${fmt(cuota, 2)}, CuotaTotal is ${text(rec, 'CuotaTotal')}`);
      if (!eq(total, dec(text(rec, 'ImporteTotal')))) return fail(id, `the breakdown adds up to ${fmt(total, 2)}, ImporteTotal is ${text(rec, 'ImporteTotal')}`);
      report.altas += 1;
    } else {
      report.anulaciones += 1;
    }
    heads.set(nif, { numSerie, fecha, huella: own });
    report.records += 1;
  }
  if (files.length === 0) return { ...report, ok: false, broken: { index: 0, file: '', id: '', reason: 'the export holds no record' } };
  return report;
}

export function describeEsReport(r: EsReport): string {
  if (!r.ok) return `BROKEN at record ${r.broken?.index ?? 0} (${r.broken?.file ?? ''}, ${r.broken?.id ?? ''}): ${r.broken?.reason ?? ''}`;
  const cont = r.continued.length ? `; the chain of ${r.continued.join(', ')} starts before this export` : '';
  return `OK: ${r.records} records (${r.altas} registrations, ${r.anulaciones} cancellations), fingerprints and chain verify${cont}`;
}

/**
 * Chain order is the order of the numbers in the file names (`records/000000001.xml`), compared as numbers:
 * a 10-digit number comes after 999999999 (text order would put it first). Names without a number last, by text.
 */
export function compareRecordNames(a: string, b: string): number {
  const na = /(\d+)\.xml$/.exec(a)?.[1];
  const nb = /(\d+)\.xml$/.exec(b)?.[1];
  if (na !== undefined && nb !== undefined) {
    const d = BigInt(na) - BigInt(nb);
    if (d !== 0n) return d < 0n ? -1 : 1;
  } else if (na !== undefined || nb !== undefined) {
    return na !== undefined ? -1 : 1;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

export async function verifyExportFile(file: string): Promise<VerifyOutcome> {
  let zip;
  try {
    zip = await openPromise(file, { lazyEntries: true, autoClose: false });
  } catch (e) {
    return { ok: false, text: `${file}: not a zip (${e instanceof Error ? e.message : String(e)})` };
  }
  try {
    const files: Array<{ name: string; xml: string }> = [];
    for await (const entry of zip.eachEntry()) {
      if (!entry.fileName.endsWith('.xml')) continue;
      files.push({ name: entry.fileName, xml: await readText(zip, entry) });
    }
    files.sort((a, b) => compareRecordNames(a.name, b.name));
    const r = verifyRecords(files);
    return { ok: r.ok, text: describeEsReport(r) };
  } finally {
    zip.close();
  }
}
