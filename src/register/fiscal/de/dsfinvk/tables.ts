/**
 * The tables of DSFinV-K 2.3 (Digitale Schnittstelle der Finanzverwaltung für Kassensysteme, BMF/BZSt):
 * file, name, and every column with its type (text with a maximum length, number with its decimal places,
 * date-time, or a 0/1 flag). Names and order are those of the table definitions in chapter 3 of the text
 * (the section is noted at each table) and of the index.xml published with it; a column the definitions
 * do not list is not written, since an auditor's tool matches the header against them. The leading `key`
 * columns are the table's primary key. The CSV writer checks every value against this, and index.xml
 * describes it.
 */

import { type Column, type Table, date, flag, num, text } from '../gdpdu/table.js';

/** Z_KASSE_ID, Z_ERSTELLUNG, Z_NR: the closing every row belongs to */
const Z = [text('Z_KASSE_ID', 'ID der (Abschluss-) Kasse', 50), date('Z_ERSTELLUNG', 'Zeitpunkt des Kassenabschlusses'), num('Z_NR', 'Nr. des Kassenabschlusses', 0)];
const BON_ID = text('BON_ID', 'Vorgangs-ID', 40);
const POS_ZEILE = text('POS_ZEILE', 'Zeilennummer', 50);

export const TAXONOMY_VERSION = '2.3';

/** The TSE certificate (base64) is stored in columns of 1000 characters. */
export const CERTIFICATE_PART = 1000;
const ROMAN = ['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X'];

function certificateColumns(parts: number): Column[] {
  return ROMAN.slice(0, parts).map((n, i) => text(`TSE_ZERTIFIKAT_${n}`, i === 0 ? 'Erste 1.000 Zeichen des Zertifikats (base64)' : 'Ggf. Rest des Zertifikats (base64)', CERTIFICATE_PART));
}

const DEFINED: Table[] = [
  // 3.1 Einzelaufzeichnungsmodul; 3.1.1
  {
    file: 'lines.csv', name: 'Bonpos', desc: 'Positionen der Vorgänge', key: 5,
    columns: [...Z, BON_ID, POS_ZEILE,
      text('GUTSCHEIN_NR', 'Gutschein-Nr.', 50), text('ARTIKELTEXT', 'Artikeltext', 255), text('POS_TERMINAL_ID', 'ID des Positions-Terminals', 50),
      text('GV_TYP', 'Geschäftsvorfall-Art', 30), text('GV_NAME', 'Zusatz zu der Geschäftsvorfall-Art', 40), flag('INHAUS', 'Verzehr an Ort und Stelle'),
      flag('P_STORNO', 'Positionsstorno-Kennzeichnung'), num('AGENTUR_ID', 'ID der Agentur', 0), text('ART_NR', 'Artikelnummer', 50), text('GTIN', 'GTIN', 50),
      text('WARENGR_ID', 'Warengruppen-ID', 40), text('WARENGR', 'Bezeichnung Warengruppe', 50), num('MENGE', 'Menge', 3), num('FAKTOR', 'Faktor, z. B. Gebindegrößen', 3),
      text('EINHEIT', 'Maßeinheit, z. B. kg, Liter oder Stück', 50), num('STK_BR', 'Preis pro Einheit inkl. USt', 5)],
  },
  // 3.1.1.1
  {
    file: 'lines_vat.csv', name: 'Bonpos_USt', desc: 'USt-Sätze der Positionen', key: 6,
    columns: [...Z, BON_ID, POS_ZEILE, num('UST_SCHLUESSEL', 'ID des USt-Satzes', 0), num('POS_BRUTTO', 'Bruttoumsatz', 5), num('POS_NETTO', 'Nettoumsatz', 5), num('POS_UST', 'USt', 5)],
  },
  // 3.1.1.2
  {
    file: 'itemamounts.csv', name: 'Bonpos_Preisfindung', desc: 'Entstehung der Preise (Basispreis, Rabatt, Zuschlag)', key: 6,
    columns: [...Z, BON_ID, POS_ZEILE, text('TYP', 'Basispreis, Rabatt oder Zuschlag', 20), num('UST_SCHLUESSEL', 'ID des USt-Satzes', 0),
      num('PF_BRUTTO', 'Bruttoumsatz', 5), num('PF_NETTO', 'Nettoumsatz', 5), num('PF_UST', 'USt', 5)],
  },
  // 3.1.1.3
  {
    file: 'subitems.csv', name: 'Bonpos_Zusatzinfo', desc: 'Zusammensetzung von Warenzusammenstellungen', key: 5,
    columns: [...Z, BON_ID, POS_ZEILE, text('ZI_ART_NR', 'Artikelnummer', 50), text('ZI_GTIN', 'GTIN', 50), text('ZI_NAME', 'Artikelbezeichnung', 50),
      text('ZI_WARENGR_ID', 'Warengruppen-ID', 40), text('ZI_WARENGR', 'Bezeichnung Warengruppe', 50), num('ZI_MENGE', 'Menge', 3), num('ZI_FAKTOR', 'Faktor, z. B. Gebindegrößen', 3),
      text('ZI_EINHEIT', 'Maßeinheit, z. B. kg, Liter oder Stück', 50), num('ZI_UST_SCHLUESSEL', 'ID USt-Satz des Basispreises', 0),
      num('ZI_BASISPREIS_BRUTTO', 'Basispreis brutto', 5), num('ZI_BASISPREIS_NETTO', 'Basispreis netto', 5), num('ZI_BASISPREIS_UST', 'Basispreis USt', 5)],
  },
  // 3.1.2
  {
    file: 'transactions.csv', name: 'Bonkopf', desc: 'Kopfdaten der Vorgänge', key: 4,
    columns: [...Z, BON_ID, num('BON_NR', 'Bonnummer', 0), text('BON_TYP', 'Bontyp', 30), text('BON_NAME', 'Zusatz-Beschreibung zum Bontyp', 60),
      text('TERMINAL_ID', 'ID des Erfassungsterminals', 50), flag('BON_STORNO', 'Storno-Kennzeichen'), date('BON_START', 'Zeitpunkt des Vorgangsstarts'),
      date('BON_ENDE', 'Zeitpunkt der Vorgangsbeendigung'), text('BEDIENER_ID', 'Bediener-ID', 50), text('BEDIENER_NAME', 'Bediener-Name', 50),
      num('UMS_BRUTTO', 'Brutto-Gesamtumsatz', 2), text('KUNDE_NAME', 'Name des Leistungsempfängers', 50), text('KUNDE_ID', 'Kundennummer des Leistungsempfängers', 50),
      text('KUNDE_TYP', 'Art des Leistungsempfängers', 50), text('KUNDE_STRASSE', 'Straße und Hausnummer des Leistungsempfängers', 60),
      text('KUNDE_PLZ', 'PLZ des Leistungsempfängers', 10), text('KUNDE_ORT', 'Ort des Leistungsempfängers', 62), text('KUNDE_LAND', 'Land des Leistungsempfängers', 3),
      text('KUNDE_USTID', 'UStID des Leistungsempfängers', 15), text('BON_NOTIZ', 'Zusätzliche Informationen zum Bonkopf', 255)],
  },
  // 3.1.2.1
  {
    file: 'transactions_vat.csv', name: 'Bonkopf_USt', desc: 'USt-Sätze der Vorgänge', key: 5,
    columns: [...Z, BON_ID, num('UST_SCHLUESSEL', 'ID des USt-Satzes', 0), num('BON_BRUTTO', 'Bruttoumsatz', 2), num('BON_NETTO', 'Nettoumsatz', 2), num('BON_UST', 'USt', 2)],
  },
  // 3.1.2.2
  {
    file: 'allocation_groups.csv', name: 'Bonkopf_AbrKreis', desc: 'Abrechnungskreise (z. B. Tische)', key: 4,
    columns: [...Z, BON_ID, text('ABRECHNUNGSKREIS', 'z. B. Tischnummer', 50)],
  },
  // 3.1.2.3
  {
    file: 'datapayment.csv', name: 'Bonkopf_Zahlarten', desc: 'Zahlarten der Vorgänge', key: 7,
    columns: [...Z, BON_ID, text('ZAHLART_TYP', 'Typ der Zahlart', 25), text('ZAHLART_NAME', 'Name der Zahlart', 60), text('ZAHLWAEH_CODE', 'Währungscode', 3),
      num('ZAHLWAEH_BETRAG', 'Betrag in Fremdwährung', 2), num('BASISWAEH_BETRAG', 'Betrag in Basiswährung', 2)],
  },
  // 3.1.2.4
  {
    file: 'references.csv', name: 'Bon_Referenzen', desc: 'Referenzen auf andere Vorgänge', key: 0,
    columns: [...Z, BON_ID, text('POS_ZEILE', 'Zeilennummer des referenzierenden Vorgangs', 50), text('REF_TYP', 'Art der Referenz', 20),
      text('REF_NAME', 'Beschreibung bei Art ExterneSonstige', 40), date('REF_DATUM', 'Zeitpunkt des referenzierten Vorgangs'),
      text('REF_Z_KASSE_ID', 'ID der (Abschluss-) Kasse', 50), num('REF_Z_NR', 'Nr. des Kassenabschlusses', 0), text('REF_BON_ID', 'Vorgangs-ID', 40)],
  },
  // 3.1.2.5
  {
    file: 'transactions_tse.csv', name: 'TSE_Transaktionen', desc: 'TSE-Transaktionen der Vorgänge', key: 4,
    columns: [...Z, BON_ID, num('TSE_ID', 'ID der für die Transaktion verwendeten TSE', 0), num('TSE_TANR', 'Transaktionsnummer der Transaktion', 0),
      text('TSE_TA_START', 'Log-Time der StartTransaction-Operation'), text('TSE_TA_ENDE', 'Log-Time der FinishTransaction-Operation'),
      text('TSE_TA_VORGANGSART', 'processType der FinishTransaction-Operation', 30), num('TSE_TA_SIGZ', 'Signaturzähler der FinishTransaction-Operation', 0),
      text('TSE_TA_SIG', 'Signatur der FinishTransaction-Operation', 512), text('TSE_TA_FEHLER', 'Ggf. Hinweise auf Fehler der TSE', 200),
      text('TSE_VORGANGSDATEN', 'Daten des Vorgangs (optional)')],
  },
  // 3.2 Stammdatenmodul; 3.2.1
  {
    file: 'cashpointclosing.csv', name: 'Stamm_Abschluss', desc: 'Kassenabschlüsse', key: 3,
    columns: [...Z, date('Z_BUCHUNGSTAG', 'Vom Erstellungsdatum abweichender Verbuchungstag'), text('TAXONOMIE_VERSION', 'Version der DFKA-Taxonomie-Kasse', 10),
      text('Z_START_ID', 'Erste BON_ID im Abschluss', 40), text('Z_ENDE_ID', 'Letzte BON_ID im Abschluss', 40), text('NAME', 'Name des Unternehmens', 60),
      text('STRASSE', 'Straße', 60), text('PLZ', 'Postleitzahl', 10), text('ORT', 'Ort', 62), text('LAND', 'Land', 3), text('STNR', 'Steuernummer des Unternehmens', 20),
      text('USTID', 'USTID', 15), num('Z_SE_ZAHLUNGEN', 'Summe aller Zahlungen', 2), num('Z_SE_BARZAHLUNGEN', 'Summe aller Barzahlungen', 2)],
  },
  // 3.2.2
  {
    file: 'location.csv', name: 'Stamm_Orte', desc: 'Betriebsstätte der Kasse', key: 3,
    columns: [...Z, text('LOC_NAME', 'Name des Standortes', 60), text('LOC_STRASSE', 'Straße', 60), text('LOC_PLZ', 'Postleitzahl', 10), text('LOC_ORT', 'Ort', 62),
      text('LOC_LAND', 'Land', 3), text('LOC_USTID', 'USTID', 15)],
  },
  // 3.2.3
  {
    file: 'cashregister.csv', name: 'Stamm_Kassen', desc: 'Stammdaten der Kasse', key: 3,
    columns: [...Z, text('KASSE_BRAND', 'Marke der Kasse', 50), text('KASSE_MODELL', 'Modellbezeichnung', 50), text('KASSE_SERIENNR', 'Seriennummer der Kasse', 70),
      text('KASSE_SW_BRAND', 'Markenbezeichnung der Software', 50), text('KASSE_SW_VERSION', 'Version der Software', 50), text('KASSE_BASISWAEH_CODE', 'Basiswährung der Kasse', 3),
      flag('KEINE_UST_ZUORDNUNG', 'UmsatzsteuerNichtErmittelbar')],
  },
  // 3.2.4
  {
    file: 'slaves.csv', name: 'Stamm_Terminals', desc: 'Erfassungsterminals', key: 4,
    columns: [...Z, text('TERMINAL_ID', 'ID des Terminals', 50), text('TERMINAL_BRAND', 'Marke des Terminals', 50), text('TERMINAL_MODELL', 'Modellbezeichnung des Terminals', 50),
      text('TERMINAL_SERIENNR', 'Seriennummer des Terminals', 70), text('TERMINAL_SW_BRAND', 'Markenbezeichnung der Software', 50), text('TERMINAL_SW_VERSION', 'Version der Software', 50)],
  },
  // 3.2.5
  {
    file: 'pa.csv', name: 'Stamm_Agenturen', desc: 'Agenturen (Umsätze für Rechnung Dritter)', key: 4,
    columns: [...Z, num('AGENTUR_ID', 'ID der Agentur', 0), text('AGENTUR_NAME', 'Name des Auftraggebers', 60), text('AGENTUR_STRASSE', 'Straße', 60),
      text('AGENTUR_PLZ', 'Postleitzahl', 10), text('AGENTUR_ORT', 'Ort', 62), text('AGENTUR_LAND', 'Land', 3), text('AGENTUR_STNR', 'Steuernummer des Auftraggebers', 20),
      text('AGENTUR_USTID', 'USTID des Auftraggebers', 15)],
  },
  // 3.2.6
  {
    file: 'vat.csv', name: 'Stamm_USt', desc: 'Umsatzsteuersätze', key: 4,
    columns: [...Z, num('UST_SCHLUESSEL', 'ID des Umsatzsteuersatzes', 0), num('UST_SATZ', 'Prozentsatz', 2), text('UST_BESCHR', 'Beschreibung', 55)],
  },
  // 3.2.7
  {
    file: 'tse.csv', name: 'Stamm_TSE', desc: 'Technische Sicherheitseinrichtungen', key: 4,
    columns: [...Z, num('TSE_ID', 'ID der TSE', 0), text('TSE_SERIAL', 'Seriennummer der TSE', 68), text('TSE_SIG_ALGO', 'Signaturalgorithmus der TSE', 30),
      text('TSE_ZEITFORMAT', 'Format der Log-Time'), text('TSE_PD_ENCODING', 'Text-Encoding der ProcessData', 5), text('TSE_PUBLIC_KEY', 'Öffentlicher Schlüssel (base64)', 512),
      ...certificateColumns(2)],
  },
  // 3.3 Kassenabschlussmodul; 3.3.1
  {
    file: 'businesscases.csv', name: 'Z_GV_Typ', desc: 'Summen je Geschäftsvorfall-Art', key: 7,
    columns: [...Z, text('GV_TYP', 'Typ der Geschäftsvorfall-Art', 30), text('GV_NAME', 'Name der Geschäftsvorfall-Art', 40), num('AGENTUR_ID', 'ID der Agentur', 0),
      num('UST_SCHLUESSEL', 'ID des Umsatzsteuersatzes', 0), num('Z_UMS_BRUTTO', 'Bruttoumsatz', 2), num('Z_UMS_NETTO', 'Nettoumsatz', 2), num('Z_UST', 'USt', 2)],
  },
  // 3.3.2
  {
    file: 'payment.csv', name: 'Z_Zahlart', desc: 'Summen je Zahlart', key: 5,
    columns: [...Z, text('ZAHLART_TYP', 'Typ der Zahlart', 25), text('ZAHLART_NAME', 'Name der Zahlart', 60), num('Z_ZAHLART_BETRAG', 'Betrag', 2)],
  },
  // 3.3.3
  {
    file: 'cash_per_currency.csv', name: 'Z_Waehrungen', desc: 'Summen je Währung (Kassensturz)', key: 4,
    columns: [...Z, text('ZAHLART_WAEH', 'Währung', 3), num('ZAHLART_BETRAG_WAEH', 'Betrag', 2)],
  },
];

const Z_KEY = ['Z_KASSE_ID', 'Z_ERSTELLUNG', 'Z_NR'];

/**
 * Stamm_TSE for a certificate of this many characters: the definitions have TSE_ZERTIFIKAT_I and _II;
 * a longer certificate gets further parts (_III, _IV, ...) after them rather than being cut.
 */
export function tseTable(certificateChars: number): Table {
  const parts = Math.max(2, Math.ceil(certificateChars / CERTIFICATE_PART));
  if (parts > ROMAN.length) throw new Error(`a TSE certificate of ${certificateChars} characters does not fit ${ROMAN.length} columns`);
  const base = tableOf('tse.csv');
  return parts === 2 ? base : { ...base, columns: [...base.columns.filter((c) => !c.name.startsWith('TSE_ZERTIFIKAT_')), ...certificateColumns(parts)] };
}

/** Every table refers to its closing (Stamm_Abschluss); the details of a receipt to its Bonkopf. */
export const TABLES: readonly Table[] = DEFINED.map((t) => {
  if (t.name === 'Stamm_Abschluss') return t;
  const references = [{ columns: Z_KEY, table: 'Stamm_Abschluss' }];
  if (t.columns[3]?.name === 'BON_ID' && t.name !== 'Bonkopf') references.push({ columns: [...Z_KEY, 'BON_ID'], table: 'Bonkopf' });
  return { ...t, references };
});

export function tableOf(file: string): Table {
  const t = TABLES.find((x) => x.file === file);
  if (!t) throw new Error(`no DSFinV-K table ${file}`);
  return t;
}
