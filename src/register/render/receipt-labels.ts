/**
 * The fixed words of a printed receipt in the operator languages of Cfg.Trm.Lang (en, de, fr, nl),
 * and the number style that goes with them: a customer reading a German receipt expects 8,38.
 */
import type { Lang } from '../../shared/errors.js';

export interface ReceiptLabels {
  receipt: string;
  return: string;
  void: string;
  invoice: string;
  closing: string;
  nonfiscal: string;
  training: string;
  start: string;
  audit: string;
  total: string;
  taxes: string;
  rate: string;
  net: string;
  tax: string;
  gross: string;
  payment: string;
  date: string;
  location: string;
  terminal: string;
  tn: string;
  fn: string;
  taxId: string;
  tin: string;
  qr: string;
  /** the delivery of an invoice's e-invoice (Fis.EInvoice): its label, and the states that are ours, not the provider's */
  einvoice: string;
  einvoicePending: string;
  einvoiceRejected: string;
  einvoiceNotSent: string;
  einvoiceTest: string;
}

const LABELS: Readonly<Record<Lang, ReceiptLabels>> = {
  en: {
    receipt: 'Receipt', return: 'Return', void: 'Void', invoice: 'Invoice', closing: 'Z report', nonfiscal: 'Non-fiscal document',
    training: 'TRAINING', start: 'Start of transaction', audit: 'Audit record', total: 'Total', taxes: 'Taxes', rate: 'Rate',
    net: 'Net', tax: 'Tax', gross: 'Gross', payment: 'Payment', date: 'Date', location: 'Location', terminal: 'Terminal',
    tn: 'Receipt no.', fn: 'Fiscal no.', taxId: 'VAT ID', tin: 'Tax no.', qr: 'QR code',
    einvoice: 'E-invoice', einvoicePending: 'waiting for delivery', einvoiceRejected: 'rejected', einvoiceNotSent: 'not delivered', einvoiceTest: 'test system',
  },
  de: {
    receipt: 'Beleg', return: 'Rückgabe', void: 'Storno', invoice: 'Rechnung', closing: 'Z-Bericht', nonfiscal: 'Kein Fiskalbeleg',
    training: 'TRAINING', start: 'Transaktionsbeginn', audit: 'Prüfprotokoll', total: 'Summe', taxes: 'Steuern', rate: 'Satz',
    net: 'Netto', tax: 'Steuer', gross: 'Brutto', payment: 'Zahlung', date: 'Datum', location: 'Filiale', terminal: 'Kasse',
    tn: 'Beleg-Nr.', fn: 'Fiskal-Nr.', taxId: 'USt-IdNr.', tin: 'St.-Nr.', qr: 'QR-Code',
    einvoice: 'E-Rechnung', einvoicePending: 'wartet auf Zustellung', einvoiceRejected: 'abgelehnt', einvoiceNotSent: 'nicht zugestellt', einvoiceTest: 'Testsystem',
  },
  fr: {
    receipt: 'Ticket', return: 'Retour', void: 'Annulation', invoice: 'Facture', closing: 'Rapport Z', nonfiscal: 'Document non fiscal',
    training: 'FORMATION', start: 'Début de transaction', audit: 'Enregistrement d\'audit', total: 'Total', taxes: 'TVA', rate: 'Taux',
    net: 'HT', tax: 'TVA', gross: 'TTC', payment: 'Paiement', date: 'Date', location: 'Établissement', terminal: 'Caisse',
    tn: 'N° ticket', fn: 'N° fiscal', taxId: 'N° TVA', tin: 'N° fiscal', qr: 'Code QR',
    einvoice: 'Facture électronique', einvoicePending: 'en attente d\'envoi', einvoiceRejected: 'rejetée', einvoiceNotSent: 'non transmise', einvoiceTest: 'système de test',
  },
  nl: {
    receipt: 'Kassabon', return: 'Retour', void: 'Storno', invoice: 'Factuur', closing: 'Z-rapport', nonfiscal: 'Niet-fiscaal document',
    training: 'TRAINING', start: 'Begin van transactie', audit: 'Auditrecord', total: 'Totaal', taxes: 'Btw', rate: 'Tarief',
    net: 'Netto', tax: 'Btw', gross: 'Bruto', payment: 'Betaling', date: 'Datum', location: 'Vestiging', terminal: 'Kassa',
    tn: 'Bonnr.', fn: 'Fiscaal nr.', taxId: 'Btw-nr.', tin: 'Fiscaal nr.', qr: 'QR-code',
    einvoice: 'E-factuur', einvoicePending: 'wacht op verzending', einvoiceRejected: 'geweigerd', einvoiceNotSent: 'niet verzonden', einvoiceTest: 'testsysteem',
  },
};

export function labelsOf(lang: Lang): ReceiptLabels {
  return LABELS[lang];
}

/** The decimal separator of a language: a point in English, a comma in the others. */
export function decimalSeparatorOf(lang: Lang): string {
  return lang === 'en' ? '.' : ',';
}
