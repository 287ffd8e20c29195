/**
 * The words of a printed X or Z report in the operator languages (en, de, fr, nl): section titles, row
 * labels, and names for the codes the day's figures are kept under (transaction kinds, payment groups),
 * so that a report reads as a report and never shows a field or code name of the interface.
 */
import type { Lang } from '../../shared/errors.js';

export interface ReportLabels {
  xreport: string;
  zNumber: string;
  period: string;
  opened: string;
  closed: string;
  lastReceipt: string;
  sales: string;
  payments: string;
  vat: string;
  categories: string;
  noCategory: string;
  totals: string;
  turnover: string;
  credits: string;
  discounts: string;
  surcharges: string;
  counters: string;
  drawerOpenings: string;
  receiptNumbers: string;
  count: string;
  amount: string;
}

const LABELS: Readonly<Record<Lang, ReportLabels>> = {
  en: {
    xreport: 'X report', zNumber: 'Z no.', period: 'Business day', opened: 'Opened', closed: 'Closed', lastReceipt: 'Last receipt',
    sales: 'Sales by type', payments: 'Payments', vat: 'VAT by rate', categories: 'Categories', noCategory: 'No category',
    totals: 'Grand totals', turnover: 'Turnover', credits: 'Credits', discounts: 'Discounts', surcharges: 'Surcharges',
    counters: 'Counters', drawerOpenings: 'Drawer openings', receiptNumbers: 'Receipt numbers', count: 'Qty', amount: 'Amount',
  },
  de: {
    xreport: 'X-Bericht', zNumber: 'Z-Nr.', period: 'Geschäftstag', opened: 'Geöffnet', closed: 'Geschlossen', lastReceipt: 'Letzter Beleg',
    sales: 'Umsätze nach Art', payments: 'Zahlungen', vat: 'Umsatzsteuer nach Sätzen', categories: 'Warengruppen', noCategory: 'Ohne Warengruppe',
    totals: 'Gesamtsummen', turnover: 'Umsatz', credits: 'Gutschriften', discounts: 'Rabatte', surcharges: 'Aufschläge',
    counters: 'Zähler', drawerOpenings: 'Schubladenöffnungen', receiptNumbers: 'Belegnummern', count: 'Anz.', amount: 'Betrag',
  },
  fr: {
    xreport: 'Rapport X', zNumber: 'N° Z', period: 'Journée', opened: 'Ouverture', closed: 'Clôture', lastReceipt: 'Dernier ticket',
    sales: 'Ventes par type', payments: 'Paiements', vat: 'TVA par taux', categories: 'Catégories', noCategory: 'Sans catégorie',
    totals: 'Totaux', turnover: "Chiffre d'affaires", credits: 'Avoirs', discounts: 'Remises', surcharges: 'Majorations',
    counters: 'Compteurs', drawerOpenings: 'Ouvertures du tiroir', receiptNumbers: 'Numéros de ticket', count: 'Nb', amount: 'Montant',
  },
  nl: {
    xreport: 'X-rapport', zNumber: 'Z-nr.', period: 'Dag', opened: 'Geopend', closed: 'Gesloten', lastReceipt: 'Laatste bon',
    sales: 'Omzet per soort', payments: 'Betalingen', vat: 'Btw per tarief', categories: 'Categorieën', noCategory: 'Zonder categorie',
    totals: 'Totalen', turnover: 'Omzet', credits: 'Creditnota’s', discounts: 'Kortingen', surcharges: 'Toeslagen',
    counters: 'Tellers', drawerOpenings: 'Ladeopeningen', receiptNumbers: 'Bonnummers', count: 'Aantal', amount: 'Bedrag',
  },
};

/** The kinds of transaction a report counts (the business cases of docs/z-report.md). */
const KINDS: Readonly<Record<Lang, Readonly<Record<string, string>>>> = {
  en: {
    sale: 'Sales', return: 'Returns', void: 'Voids', invoice: 'Invoices', voucher: 'Vouchers', deposit: 'Deposits', tip: 'Tips',
    lineVoid: 'Line voids', payin: 'Pay-ins', payout: 'Pay-outs', payment: 'Payments received', login: 'Log-ins', logout: 'Log-outs',
    training: 'Training', nonfiscal: 'Non-fiscal', reprint: 'Reprints', xreport: 'X reports', closing: 'Z reports', test: 'Tests',
  },
  de: {
    sale: 'Verkäufe', return: 'Rückgaben', void: 'Stornos', invoice: 'Rechnungen', voucher: 'Gutscheine', deposit: 'Anzahlungen', tip: 'Trinkgelder',
    lineVoid: 'Zeilenstornos', payin: 'Einlagen', payout: 'Entnahmen', payment: 'Zahlungseingänge', login: 'Anmeldungen', logout: 'Abmeldungen',
    training: 'Training', nonfiscal: 'Nicht fiskal', reprint: 'Nachdrucke', xreport: 'X-Berichte', closing: 'Z-Berichte', test: 'Tests',
  },
  fr: {
    sale: 'Ventes', return: 'Retours', void: 'Annulations', invoice: 'Factures', voucher: 'Bons', deposit: 'Acomptes', tip: 'Pourboires',
    lineVoid: 'Lignes annulées', payin: 'Apports', payout: 'Retraits', payment: 'Encaissements', login: 'Connexions', logout: 'Déconnexions',
    training: 'Formation', nonfiscal: 'Non fiscal', reprint: 'Duplicatas', xreport: 'Rapports X', closing: 'Rapports Z', test: 'Tests',
  },
  nl: {
    sale: 'Verkopen', return: 'Retouren', void: 'Annuleringen', invoice: 'Facturen', voucher: 'Waardebonnen', deposit: 'Aanbetalingen', tip: 'Fooien',
    lineVoid: 'Regelannuleringen', payin: 'Stortingen', payout: 'Opnames', payment: 'Ontvangsten', login: 'Aanmeldingen', logout: 'Afmeldingen',
    training: 'Training', nonfiscal: 'Niet-fiscaal', reprint: 'Herdrukken', xreport: 'X-rapporten', closing: 'Z-rapporten', test: 'Tests',
  },
};

/** The payment groups of the interface (PayG). */
const PAYMENTS: Readonly<Record<Lang, Readonly<Record<string, string>>>> = {
  en: {
    cash: 'Cash', change: 'Change', refund: 'Refunds', atm: 'ATM', foreign: 'Foreign currency', debitcard: 'Debit card', mobile: 'Mobile payment',
    creditcard: 'Credit card', open: 'On account', creditnote: 'Credit notes', loyalty: 'Loyalty points', title: 'Meal vouchers', check: 'Cheques', rounding: 'Rounding',
  },
  de: {
    cash: 'Bar', change: 'Wechselgeld', refund: 'Erstattungen', atm: 'Geldautomat', foreign: 'Fremdwährung', debitcard: 'Debitkarte', mobile: 'Mobile Zahlung',
    creditcard: 'Kreditkarte', open: 'Auf Rechnung', creditnote: 'Gutschriften', loyalty: 'Treuepunkte', title: 'Essensgutscheine', check: 'Schecks', rounding: 'Rundung',
  },
  fr: {
    cash: 'Espèces', change: 'Rendu monnaie', refund: 'Remboursements', atm: 'Distributeur', foreign: 'Devises', debitcard: 'Carte de débit', mobile: 'Paiement mobile',
    creditcard: 'Carte de crédit', open: 'En compte', creditnote: 'Avoirs', loyalty: 'Points fidélité', title: 'Titres-restaurant', check: 'Chèques', rounding: 'Arrondi',
  },
  nl: {
    cash: 'Contant', change: 'Wisselgeld', refund: 'Terugbetalingen', atm: 'Geldautomaat', foreign: 'Vreemde valuta', debitcard: 'Pinpas', mobile: 'Mobiel betalen',
    creditcard: 'Creditcard', open: 'Op rekening', creditnote: 'Creditnota’s', loyalty: 'Spaarpunten', title: 'Maaltijdcheques', check: 'Cheques', rounding: 'Afronding',
  },
};

export function reportLabelsOf(lang: Lang): ReportLabels {
  return LABELS[lang];
}

/** A transaction kind's name; a kind the list does not know is printed as recorded. */
export function kindName(lang: Lang, kind: string): string {
  return Object.hasOwn(KINDS[lang], kind) ? (KINDS[lang][kind] ?? kind) : kind;
}

/** A payment group's name; a national code the list does not know is printed as recorded. */
export function paymentName(lang: Lang, payG: string): string {
  return Object.hasOwn(PAYMENTS[lang], payG) ? (PAYMENTS[lang][payG] ?? payG) : payG;
}
