/**
 * The VeriFactu records as AEAT's XML (SuministroInformacion.xsd elements, prefix sum1): RegistroAlta and
 * RegistroAnulacion, written once when the record is made and kept in the journal as Fis.Payload, so the
 * export repeats exactly what was hashed. The element order is the schema's.
 */
import type { Detalle } from './desglose.js';
import { money } from './desglose.js';
import { fmt } from '../../../shared/money.js';
import { escapeText } from '../../codec/xml-text.js';

export const NS_LR = 'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroLR.xsd';
export const NS_INFO = 'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroInformacion.xsd';

/**
 * An element of the sum1 namespace; children given as already written XML, text escaped. The Huella covers
 * the fields' values (huella.ts), not this text: the verifier reads them back through a parser.
 */
function el(name: string, content: string | string[]): string {
  return Array.isArray(content) ? `<sum1:${name}>${content.join('')}</sum1:${name}>` : `<sum1:${name}>${escapeText(content)}</sum1:${name}>`;
}

export interface InvoiceId {
  nif: string;
  numSerie: string;
  /** dd-mm-yyyy */
  fecha: string;
}

/** The previous record of the chain: its id and fingerprint; undefined for the first record. */
export interface Previous extends InvoiceId {
  huella: string;
}

export interface Sistema {
  nif: string;
  name: string;
  /** NumeroInstalacion: the instance's key id and the register (unique per chain) */
  installation: string;
  version: string;
}

export interface Recipient {
  name: string;
  nif?: string;
  other?: { country: string; idType: string; id: string };
}

export interface AltaRecord {
  id: InvoiceId;
  issuerName: string;
  tipo: string;
  rectified?: InvoiceId;
  descripcion: string;
  recipient?: Recipient;
  detalles: Detalle[];
  cuotaTotal: string;
  importeTotal: string;
  previous?: Previous;
  sistema: Sistema;
  generated: string;
  huella: string;
}

export interface AnulacionRecord {
  id: InvoiceId;
  previous?: Previous;
  sistema: Sistema;
  generated: string;
  huella: string;
}

function encadenamiento(previous: Previous | undefined): string {
  if (!previous) return el('Encadenamiento', [el('PrimerRegistro', 'S')]);
  return el('Encadenamiento', [el('RegistroAnterior', [el('IDEmisorFactura', previous.nif), el('NumSerieFactura', previous.numSerie), el('FechaExpedicionFactura', previous.fecha), el('Huella', previous.huella)])]);
}

function sistema(s: Sistema): string {
  return el('SistemaInformatico', [
    el('NombreRazon', s.name), el('NIF', s.nif), el('NombreSistemaInformatico', 'efr'), el('IdSistemaInformatico', 'EF'), el('Version', s.version),
    el('NumeroInstalacion', s.installation), el('TipoUsoPosibleSoloVerifactu', 'N'), el('TipoUsoPosibleMultiOT', 'S'), el('IndicadorMultiplesOT', 'N'),
  ]);
}

function detalle(d: Detalle): string {
  const exempt = d.prc.v === 0n;
  const parts = [el('Impuesto', '01'), el('ClaveRegimen', d.clave)];
  if (exempt) parts.push(el('OperacionExenta', 'E1'), el('BaseImponibleOimporteNoSujeto', money(d.base)));
  else parts.push(el('CalificacionOperacion', 'S1'), el('TipoImpositivo', fmt(d.prc, 2)), el('BaseImponibleOimporteNoSujeto', money(d.base)), el('CuotaRepercutida', money(d.cuota)));
  if (d.recargoPrc && d.recargo) parts.push(el('TipoRecargoEquivalencia', fmt(d.recargoPrc, 2)), el('CuotaRecargoEquivalencia', money(d.recargo)));
  return el('DetalleDesglose', parts);
}

export function altaXml(r: AltaRecord): string {
  const parts = [
    el('IDVersion', '1.0'),
    el('IDFactura', [el('IDEmisorFactura', r.id.nif), el('NumSerieFactura', r.id.numSerie), el('FechaExpedicionFactura', r.id.fecha)]),
    el('NombreRazonEmisor', r.issuerName),
    el('TipoFactura', r.tipo),
  ];
  if (r.tipo.startsWith('R')) parts.push(el('TipoRectificativa', 'I'));
  if (r.rectified) parts.push(el('FacturasRectificadas', [el('IDFacturaRectificada', [el('IDEmisorFactura', r.rectified.nif), el('NumSerieFactura', r.rectified.numSerie), el('FechaExpedicionFactura', r.rectified.fecha)])]));
  parts.push(el('DescripcionOperacion', r.descripcion));
  if (r.recipient) {
    const who = r.recipient.nif ? [el('NombreRazon', r.recipient.name), el('NIF', r.recipient.nif)] : [el('NombreRazon', r.recipient.name), el('IDOtro', [el('CodigoPais', r.recipient.other?.country ?? ''), el('IDType', r.recipient.other?.idType ?? ''), el('ID', r.recipient.other?.id ?? '')])];
    parts.push(el('Destinatarios', [el('IDDestinatario', who)]));
  }
  parts.push(
    el('Desglose', r.detalles.map(detalle)),
    el('CuotaTotal', r.cuotaTotal),
    el('ImporteTotal', r.importeTotal),
    encadenamiento(r.previous),
    sistema(r.sistema),
    el('FechaHoraHusoGenRegistro', r.generated),
    el('TipoHuella', '01'),
    el('Huella', r.huella),
  );
  return `<sum1:RegistroAlta xmlns:sum1="${NS_INFO}">${parts.join('')}</sum1:RegistroAlta>`;
}

export function anulacionXml(r: AnulacionRecord): string {
  const parts = [
    el('IDVersion', '1.0'),
    el('IDFactura', [el('IDEmisorFacturaAnulada', r.id.nif), el('NumSerieFacturaAnulada', r.id.numSerie), el('FechaExpedicionFacturaAnulada', r.id.fecha)]),
    encadenamiento(r.previous),
    sistema(r.sistema),
    el('FechaHoraHusoGenRegistro', r.generated),
    el('TipoHuella', '01'),
    el('Huella', r.huella),
  ];
  return `<sum1:RegistroAnulacion xmlns:sum1="${NS_INFO}">${parts.join('')}</sum1:RegistroAnulacion>`;
}

/** One record in the envelope AEAT receives (RegFactuSistemaFacturacion of SuministroLR.xsd). */
export function envelope(issuer: { nif: string; name: string }, record: string): string {
  // the record carries its own xmlns:sum1; declared on the root too, for readers that want one declaration
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sum:RegFactuSistemaFacturacion xmlns:sum="${NS_LR}" xmlns:sum1="${NS_INFO}"><sum:Cabecera><sum1:ObligadoEmision><sum1:NombreRazon>${escapeText(issuer.name)}</sum1:NombreRazon><sum1:NIF>${escapeText(issuer.nif)}</sum1:NIF></sum1:ObligadoEmision></sum:Cabecera><sum:RegistroFactura>${record}</sum:RegistroFactura></sum:RegFactuSistemaFacturacion>\n`;
}
