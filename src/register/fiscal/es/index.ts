/**
 * Spain. Every fiscal receipt becomes an invoice record: with VeriFactu (AEAT) a RegistroAlta chained by its
 * SHA-256 fingerprint to the register's previous record, a void a RegistroAnulacion of the original, and the
 * AEAT QR URL to print; in the Basque provinces TicketBAI: a signed invoice with its TBAI identifier
 * (Fis.ES_TBAI_Code) and the province's QR URL. Simplified invoices (F2) without a customer, full invoices
 * (F1) with a customer's tax id, rectifying invoices (R5/R1) for returns. See docs/countries/es.md.
 */
import { readFileSync } from 'node:fs';
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, lines, obj, str } from '../../codec/index.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { isPos } from '../../esr/tax.js';
import { GenericModule } from '../generic/index.js';
import type { ExportFile, ExportRequest, FiscalInput, FiscalModule, PrepareInput } from '../module.js';
import { ES_LETTERS } from './letters.js';
import { type EsSystem, isTest, issuerOf, nifOf, systemOf } from './config.js';
import { breakdownOf, money, transactionRegime } from './desglose.js';
import { verifactuExport } from './export.js';
import { NO_VERIFACTU_QR_URL, NO_VERIFACTU_QR_URL_TEST, aeatDate, altaString, anulacionString, huella, madridDateTime, verifactuQrUrl } from './huella.js';
import { type Issued, issuedOf } from './issued.js';
import { customerTaxId, recipientOf } from './recipient.js';
import { type InvoiceId, type Previous, type Recipient, type Sistema, altaXml, anulacionXml } from './registro.js';
import { nextNumber, seriesOf } from './series.js';
import { TBAI_QR_URL, tbaiDate, tbaiIdentifier, tbaiQrUrl } from './tbai.js';
import { ensureTbaiKey, loadedTbaiKey, tbaiSign } from './tbai-key.js';
import { ES_FILES } from './files.js';
import { ES_VERIFIER } from './verifier.js';

const VERSION = ((): string => {
  try {
    return (JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();

const TYPE_TEXT: Readonly<Record<string, string>> = { F1: 'Factura', F2: 'Factura simplificada', R1: 'Factura rectificativa', R5: 'Factura rectificativa (simplificada)' };

/** The chain head of one issuer NIF in the register's country state: the previous record's id and fingerprint. */
function chainHead(state: Record<string, string>, prefix: string, nif: string): Previous | undefined {
  const text = state[`${prefix}|${nif}|prev`];
  if (!text) return undefined;
  const [numSerie = '', fecha = '', h = ''] = text.split('\n');
  return { nif, numSerie, fecha, huella: h };
}

function setChainHead(state: Record<string, string>, prefix: string, p: Previous): void {
  state[`${prefix}|${p.nif}|prev`] = [p.numSerie, p.fecha, p.huella].join('\n');
}

/**
 * The customer of a full or rectifying invoice: the transaction's own, else (a return that names none) the
 * customer of the invoice it rectifies, so the R1 of an F1 names the same recipient.
 */
function recipientFor(input: FiscalInput): Recipient | undefined {
  const own = recipientOf(input.esr);
  if (own) return own;
  const originalEsr = input.original ? obj(input.original, 'ESR') : undefined;
  return input.bc.kind === 'return' && originalEsr ? recipientOf(originalEsr) : undefined;
}

function descriptionOf(esr: Obj): string {
  const names = lines(esr, 'PosA').filter(isPos).map((p) => str(p, 'Dsc') ?? '').filter(Boolean);
  const text = names.join(', ') || 'Venta';
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

/** The original a void or return names: from the journal, else RFN with RD (the original's date) as given. */
function originalOf(input: FiscalInput, nif: string): Issued | undefined {
  const found = input.original ? issuedOf(input.original) : undefined;
  if (found) return found;
  const rfn = str(input.esr, 'RFN')?.trim();
  const rd = str(input.esr, 'RD')?.trim();
  if (rfn && rd && /^\d{4}-\d{2}-\d{2}/.test(rd)) return { nif, numSerie: rfn, fecha: aeatDate(rd), tipo: '' };
  return undefined;
}

function tipoOf(bc: BusinessCase, esr: Obj, original: Issued | undefined): string {
  const hasTaxId = customerTaxId(esr) !== undefined;
  if (bc.kind === 'return') {
    if (original?.tipo === 'F1' || original?.tipo === 'R1') return 'R1';
    if (original?.tipo === 'F2' || original?.tipo === 'R5') return 'R5';
    return hasTaxId ? 'R1' : 'R5';
  }
  return hasTaxId ? 'F1' : 'F2';
}

export class EsModule implements FiscalModule {
  readonly country = 'ES';
  readonly files = ES_FILES;
  readonly verifier = ES_VERIFIER;
  readonly letters = ES_LETTERS;
  private readonly generic = new GenericModule('ES', ES_LETTERS);
  readonly exports: Readonly<Record<string, (req: ExportRequest) => Promise<ExportFile>>> = {
    verifactu: verifactuExport,
  };

  validate(esr: Obj, bc: BusinessCase): void {
    // the regimes are checked before anything is registered (the breakdown uses them again)
    transactionRegime(esr, {});
    lines(esr, 'PosA').forEach((p, i) => {
      const v = str(p, 'VatRegime');
      if (v !== undefined && !['GENERAL', 'SIMPLE', 'REDE'].includes(v.toUpperCase())) {
        throw new FiscalError('#INVALID_VALUE', { field: `ESR.PosA[${i}].VatRegime`, detail: `GENERAL, SIMPLE or REDE, got "${v}"` });
      }
    });
    // a customer tax id the AEAT would reject is refused before anything is registered (invoices only)
    if (bc.fiscal) recipientOf(esr);
  }

  prepare(input: PrepareInput): Promise<void> {
    const system = systemOf(input.state.cfg, input.attributes);
    const nif = nifOf(str(obj(input.state.cfg, 'Cmp') ?? {}, 'TaxId'));
    if (system.kind === 'TBAI' && nif) ensureTbaiKey(input.dataDir, nif);
    return Promise.resolve();
  }

  fiscalize(input: FiscalInput): Obj {
    const { esr, bc } = input;
    // non-fiscal documents, training and test receipts are not invoices: numbered like everywhere else
    if (input.type !== 'Tra' || !bc.fiscal || bc.flags.includes('test')) return this.generic.fiscalize(input);
    const system = systemOf(input.state.cfg, input.attributes);
    const issuer = issuerOf(input.state.cfg);
    if (bc.kind === 'void') return this.cancellation(input, system, issuer);
    const original = bc.kind === 'return' ? originalOf(input, issuer.nif) : undefined;
    const tipo = tipoOf(bc, esr, original);
    return system.kind === 'VERIFACTU' ? this.verifactuAlta(input, issuer, tipo, original) : this.tbaiAlta(input, system.province, issuer, tipo, original);
  }

  private sistema(input: FiscalInput, issuer: { nif: string; name: string }): Sistema {
    // the producer of the billing system: configurable, else the company itself (its own system)
    // NumeroInstalacion: the instance (its journal key id) and the register, so every chain has its own
    const installation = `${input.signer.keyId}-${input.rn}`.slice(0, 100);
    return { nif: input.attributes.get('fiscal_sifnif') ?? issuer.nif, name: input.attributes.get('fiscal_sifname') ?? issuer.name, installation, version: VERSION };
  }

  private verifactuAlta(input: FiscalInput, issuer: { nif: string; name: string }, tipo: string, original: Issued | undefined): Obj {
    const { esr, state } = input;
    const country = state.country;
    const d = str(esr, 'D') ?? formatLocalDateTime(input.now);
    const b = breakdownOf(esr, state.cfg);
    const series = seriesOf(esr, state.cfg, tipo);
    const id: InvoiceId = { nif: issuer.nif, numSerie: `${series}/${nextNumber(country, series)}`, fecha: aeatDate(d) };
    const previous = chainHead(country, 'vf', issuer.nif);
    const generated = madridDateTime(input.now);
    const cuotaTotal = money(b.cuotaTotal);
    const importeTotal = money(b.importeTotal);
    const hashed = altaString({ idEmisorFactura: id.nif, numSerieFactura: id.numSerie, fechaExpedicionFactura: id.fecha, tipoFactura: tipo, cuotaTotal, importeTotal, huellaAnterior: previous?.huella ?? '', fechaHoraHusoGenRegistro: generated });
    const h = huella(hashed);
    const recipient = tipo === 'F1' || tipo === 'R1' ? recipientFor(input) : undefined;
    const xml = altaXml({
      id, issuerName: issuer.name, tipo, descripcion: descriptionOf(esr), detalles: b.detalles, cuotaTotal, importeTotal,
      ...(original ? { rectified: { nif: original.nif, numSerie: original.numSerie, fecha: original.fecha } } : {}),
      ...(recipient ? { recipient } : {}), ...(previous ? { previous } : {}),
      sistema: this.sistema(input, issuer), generated, huella: h,
    });
    setChainHead(country, 'vf', { ...id, huella: h });
    const code = verifactuQrUrl(isTest(input.attributes) ? NO_VERIFACTU_QR_URL_TEST : NO_VERIFACTU_QR_URL, { nif: id.nif, numserie: id.numSerie, fecha: id.fecha, importe: importeTotal });
    const tags: Obj[] = [
      { Name: 'NumSerieFactura', Label: 'Factura:', Value: id.numSerie },
      { Name: 'TipoFactura', Label: 'Tipo:', Value: `${tipo} ${TYPE_TEXT[tipo] ?? ''}`.trim() },
    ];
    if (original) tags.push({ Name: 'Rectifica', Label: 'Rectifica:', Value: `${original.numSerie} ${original.fecha}` });
    // no "VERI*FACTU" legend: it says the records are sent to the AEAT, which this service does not do (docs/countries/es.md)
    return { D: formatLocalDateTime(input.now), FN: id.numSerie, Type: tipo, Code: code, Payload: xml, Signature: h, Tag: tags };
  }

  private tbaiAlta(input: FiscalInput, province: keyof typeof TBAI_QR_URL, issuer: { nif: string; name: string }, tipo: string, original: Issued | undefined): Obj {
    const { esr, state } = input;
    const country = state.country;
    const d = str(esr, 'D') ?? formatLocalDateTime(input.now);
    const b = breakdownOf(esr, state.cfg);
    const series = seriesOf(esr, state.cfg, tipo);
    const number = nextNumber(country, series);
    const numSerie = `${series}/${number}`;
    const key = loadedTbaiKey(input.dataDir, issuer.nif);
    if (!key) throw new FiscalError('#DEVICE_FAILED', { value: `TicketBAI key of ${issuer.nif}` });
    const previous = chainHead(country, 'tbai', issuer.nif);
    const importe = money(b.importeTotal);
    // what is signed: the invoice's identity and amounts, and the first 100 characters of the previous signature
    const signed = ['TBAI', issuer.nif, series, number, aeatDate(d), d.slice(11, 19), tipo, money(b.cuotaTotal), importe, original ? original.numSerie : '', previous ? previous.huella.slice(0, 100) : ''].join('|');
    const signature = tbaiSign(key, signed);
    const id = tbaiIdentifier(issuer.nif, tbaiDate(d), signature);
    const code = tbaiQrUrl(isTest(input.attributes) ? TBAI_QR_URL[province].test : TBAI_QR_URL[province].prod, { id, series, number, total: importe });
    setChainHead(country, 'tbai', { nif: issuer.nif, numSerie, fecha: aeatDate(d), huella: signature });
    const tags: Obj[] = [
      { Name: 'NumFactura', Label: 'Factura:', Value: numSerie },
      { Name: 'TipoFactura', Label: 'Tipo:', Value: `${tipo} ${TYPE_TEXT[tipo] ?? ''}`.trim() },
    ];
    if (original) tags.push({ Name: 'Rectifica', Label: 'Rectifica:', Value: `${original.numSerie} ${original.fecha}` });
    tags.push({ Name: 'TBAI', Label: 'TicketBAI:', Value: id });
    return { D: formatLocalDateTime(input.now), FN: numSerie, Type: tipo, ES_TBAI_Code: id, Code: code, Payload: signed, Signature: signature, Tag: tags };
  }

  /** A void of a receipt: the cancellation of the original invoice (VeriFactu RegistroAnulacion; TicketBAI anulación). */
  private cancellation(input: FiscalInput, system: EsSystem, issuer: { nif: string; name: string }): Obj {
    const { state } = input;
    const original = originalOf(input, issuer.nif);
    if (!original) {
      throw new FiscalError('#INVALID_VALUE', { field: 'ESR.RFN', detail: 'the voided invoice is not known to this register: send RFN (its FN, the invoice number) and RD (its date)' });
    }
    // only the issuer of an invoice cancels it; its chain is the current NIF's (one chain head read and written)
    if (original.nif !== issuer.nif) {
      throw new FiscalError('#INVALID_VALUE', { field: 'ESR.RFN', detail: `${original.numSerie} was issued under the NIF ${original.nif}; this register now issues under ${issuer.nif} (Cfg.Cmp.TaxId) and cannot cancel it` });
    }
    const fis: Obj = { D: formatLocalDateTime(input.now), FN: `A:${original.numSerie}`, Type: 'Anulacion' };
    const tags: Obj[] = [{ Name: 'Anulada', Label: 'Anulada:', Value: `${original.numSerie} ${original.fecha}` }];
    if (system.kind === 'VERIFACTU') {
      const previous = chainHead(state.country, 'vf', issuer.nif);
      const generated = madridDateTime(input.now);
      const h = huella(anulacionString({ idEmisorFacturaAnulada: original.nif, numSerieFacturaAnulada: original.numSerie, fechaExpedicionFacturaAnulada: original.fecha, huellaAnterior: previous?.huella ?? '', fechaHoraHusoGenRegistro: generated }));
      const id: InvoiceId = { nif: original.nif, numSerie: original.numSerie, fecha: original.fecha };
      fis.Payload = anulacionXml({ id, ...(previous ? { previous } : {}), sistema: this.sistema(input, issuer), generated, huella: h });
      fis.Signature = h;
      // the chain goes on from the cancellation, named by the invoice it cancels
      setChainHead(state.country, 'vf', { ...id, huella: h });
    } else {
      const key = loadedTbaiKey(input.dataDir, issuer.nif);
      if (!key) throw new FiscalError('#DEVICE_FAILED', { value: `TicketBAI key of ${issuer.nif}` });
      const signed = ['TBAI-ANULA', original.nif, original.numSerie, original.fecha, madridDateTime(input.now)].join('|');
      fis.Payload = signed;
      fis.Signature = tbaiSign(key, signed);
    }
    fis.Tag = tags;
    return fis;
  }
}
