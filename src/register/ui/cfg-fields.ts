/**
 * The fields of the base data (Cfg) as the spec's table lists them, part by part, with labels in the four page
 * languages, and the countries a field or part belongs to (the French FR_* fields only for FR). Fields a
 * register's Cfg has beyond these are shown by the page as name/value rows.
 */
import type { Texts } from './i18n.js';

export type CfgPartKind = 'object' | 'array';

export interface CfgPartDef {
  /** the Cfg key: Cmp, Loc, Trm, Dev, DE_Agentur, Doc */
  key: string;
  kind: CfgPartKind;
  /** text key of the section title */
  title: string;
  fields: readonly string[];
  /** required for fiscal receipts (the spec's "yes") */
  required: readonly string[];
  /** fields offered as a choice (values as the API takes them) */
  choices?: Readonly<Record<string, readonly string[]>>;
  /** the countries (Cmp.Ctry) whose modules read the part; none: every country */
  countries?: readonly string[];
  /** fields only some countries' modules read, with those countries; the others belong to every country */
  fieldCountries?: Readonly<Record<string, readonly string[]>>;
}

const FR_ONLY = ['FR'] as const;

export const CFG_PARTS: readonly CfgPartDef[] = [
  {
    key: 'Cmp', kind: 'object', title: 'part.Cmp',
    fields: ['Nam', 'label', 'Adr', 'AdrNr', 'Zip', 'City', 'Ctry', 'TaxId', 'TIN', 'Org', 'VatRegime', 'VATonPayment', 'FR_NAF', 'FR_SRN', 'FR_RCS', 'FR_TYPE', 'FR_CAPITAL', 'FR_METIER'],
    required: ['Nam', 'Adr', 'Zip', 'City', 'Ctry', 'TaxId'],
    choices: { VatRegime: ['GENERAL', 'SIMPLE', 'REDE'], VATonPayment: ['0', '1'] },
    fieldCountries: { Org: ['SE'], VatRegime: ['ES'], VATonPayment: ['ES'], FR_NAF: FR_ONLY, FR_SRN: FR_ONLY, FR_RCS: FR_ONLY, FR_TYPE: FR_ONLY, FR_CAPITAL: FR_ONLY, FR_METIER: FR_ONLY },
  },
  { key: 'Loc', kind: 'object', title: 'part.Loc', fields: ['TL', 'Nam', 'label', 'Adr', 'AdrNr', 'Zip', 'City', 'Ctry', 'State', 'TaxId', 'FR_SIR', 'LegalId'], required: ['TL', 'Nam', 'Adr', 'Zip', 'City', 'Ctry'], fieldCountries: { FR_SIR: FR_ONLY } },
  { key: 'Trm', kind: 'object', title: 'part.Trm', fields: ['TT', 'SW', 'HW', 'Serial', 'SWVersion', 'HWModel', 'OprSSN', 'Lang'], required: ['TT', 'SW', 'HW', 'Serial'], choices: { Lang: ['en', 'de', 'fr', 'nl'] } },
  { key: 'Dev', kind: 'array', title: 'part.Dev', fields: ['Id', 'HW', 'HWModel', 'SW', 'SWVersion', 'Serial'], required: [] },
  { key: 'DE_Agentur', kind: 'array', title: 'part.DE_Agentur', fields: ['Id', 'Nam', 'Adr', 'Zip', 'City', 'Ctry', 'TaxId'], required: [], countries: ['DE'] },
  { key: 'Doc', kind: 'object', title: 'part.Doc', fields: ['ContactName', 'ContactTelephone', 'ContactElectronicMail', 'PaymentTerms', 'AccountName', 'AccountIBAN', 'AccountBIC', 'PaymentPeriod'], required: [] },
];

/**
 * The part belongs to the country; without a country (new base data) every part is shown, so the first save
 * can hold all of them.
 */
export function partApplies(part: CfgPartDef, country: string): boolean {
  return country === '' || part.countries === undefined || part.countries.includes(country);
}

/** The field belongs to the country (or to every country); without a country every field is shown. */
export function fieldApplies(part: CfgPartDef, field: string, country: string): boolean {
  const only = part.fieldCountries?.[field];
  return country === '' || only === undefined || only.includes(country);
}

/** Labels of the fields (`field.<name>`), titles of the parts (`part.<key>`). */
export const CFG_FIELD_TEXTS: Texts = {
  'part.Cmp': { en: 'Company (Cmp)', de: 'Unternehmen (Cmp)', fr: 'Entreprise (Cmp)', nl: 'Bedrijf (Cmp)' },
  'part.Loc': { en: 'Location (Loc)', de: 'Standort (Loc)', fr: 'Établissement (Loc)', nl: 'Vestiging (Loc)' },
  'part.Trm': { en: 'Terminal (Trm)', de: 'Kassenterminal (Trm)', fr: 'Terminal (Trm)', nl: 'Terminal (Trm)' },
  'part.Dev': { en: 'Handheld input devices (Dev)', de: 'Mobile Eingabegeräte (Dev)', fr: 'Appareils de saisie mobiles (Dev)', nl: 'Mobiele invoerapparaten (Dev)' },
  'part.DE_Agentur': { en: 'Third-party agencies (DE_Agentur)', de: 'Agenturen (DE_Agentur)', fr: 'Agences tierces (DE_Agentur)', nl: 'Agentschappen van derden (DE_Agentur)' },
  'part.Doc': { en: 'E-invoicing sender data (Doc)', de: 'Absenderdaten für E-Rechnungen (Doc)', fr: 'Données d\'expéditeur de la facture électronique (Doc)', nl: 'Afzendergegevens voor e-facturen (Doc)' },
  'field.Nam': { en: 'Name', de: 'Name', fr: 'Nom', nl: 'Naam' },
  'field.label': { en: 'Short name (at most 10 characters)', de: 'Kurzname (höchstens 10 Zeichen)', fr: 'Nom court (10 caractères au plus)', nl: 'Korte naam (hoogstens 10 tekens)' },
  'field.Adr': { en: 'Street', de: 'Straße', fr: 'Rue', nl: 'Straat' },
  'field.AdrNr': { en: 'House number', de: 'Hausnummer', fr: 'Numéro', nl: 'Huisnummer' },
  'field.Zip': { en: 'Postcode', de: 'Postleitzahl', fr: 'Code postal', nl: 'Postcode' },
  'field.City': { en: 'City', de: 'Ort', fr: 'Ville', nl: 'Plaats' },
  'field.Ctry': { en: 'Country (ISO 3166, e.g. AT)', de: 'Land (ISO 3166, z. B. AT)', fr: 'Pays (ISO 3166, p. ex. AT)', nl: 'Land (ISO 3166, bv. AT)' },
  'field.TaxId': { en: 'VAT id', de: 'USt-IdNr.', fr: 'Numéro de TVA', nl: 'Btw-nummer' },
  'field.TIN': { en: 'Tax number', de: 'Steuernummer', fr: 'Numéro fiscal', nl: 'Belastingnummer' },
  'field.Org': { en: 'Organization number (SE, NNNNNN-NNNN)', de: 'Organisationsnummer (SE, NNNNNN-NNNN)', fr: 'Numéro d\'organisation (SE, NNNNNN-NNNN)', nl: 'Organisatienummer (SE, NNNNNN-NNNN)' },
  'field.VatRegime': { en: 'VAT regime', de: 'Umsatzsteuerregelung', fr: 'Régime de TVA', nl: 'Btw-regeling' },
  'field.VATonPayment': { en: 'VAT on payment (1) instead of on issuance (0)', de: 'USt bei Zahlung (1) statt bei Ausstellung (0)', fr: 'TVA à l\'encaissement (1) au lieu de l\'émission (0)', nl: 'Btw bij betaling (1) in plaats van bij uitgifte (0)' },
  'field.FR_NAF': { en: 'NAF code (FR)', de: 'NAF-Code (FR)', fr: 'Code NAF (FR)', nl: 'NAF-code (FR)' },
  'field.FR_SRN': { en: 'SIREN (FR)', de: 'SIREN (FR)', fr: 'SIREN (FR)', nl: 'SIREN (FR)' },
  'field.FR_RCS': { en: 'Trade register RCS (FR)', de: 'Handelsregister RCS (FR)', fr: 'RCS (FR)', nl: 'Handelsregister RCS (FR)' },
  'field.FR_TYPE': { en: 'Legal form (FR)', de: 'Rechtsform (FR)', fr: 'Forme juridique (FR)', nl: 'Rechtsvorm (FR)' },
  'field.FR_CAPITAL': { en: 'Share capital (FR)', de: 'Stammkapital (FR)', fr: 'Capital social (FR)', nl: 'Maatschappelijk kapitaal (FR)' },
  'field.FR_METIER': { en: 'Trade (FR)', de: 'Gewerbe (FR)', fr: 'Métier (FR)', nl: 'Beroep (FR)' },
  'field.TL': { en: 'Location id (TL)', de: 'Standortkennung (TL)', fr: 'Identifiant d\'établissement (TL)', nl: 'Vestigingscode (TL)' },
  'field.State': { en: 'State or region', de: 'Bundesland oder Region', fr: 'État ou région', nl: 'Staat of regio' },
  'field.FR_SIR': { en: 'SIRET (FR)', de: 'SIRET (FR)', fr: 'SIRET (FR)', nl: 'SIRET (FR)' },
  'field.LegalId': { en: 'Legal id', de: 'Rechtliche Kennung', fr: 'Identifiant légal', nl: 'Juridische identificatie' },
  'field.TT': { en: 'Terminal id (TT)', de: 'Kassenkennung (TT)', fr: 'Identifiant de terminal (TT)', nl: 'Terminalcode (TT)' },
  'field.SW': { en: 'Software', de: 'Software', fr: 'Logiciel', nl: 'Software' },
  'field.HW': { en: 'Hardware', de: 'Hardware', fr: 'Matériel', nl: 'Hardware' },
  'field.Serial': { en: 'Serial number', de: 'Seriennummer', fr: 'Numéro de série', nl: 'Serienummer' },
  'field.SWVersion': { en: 'Software version', de: 'Softwareversion', fr: 'Version du logiciel', nl: 'Softwareversie' },
  'field.HWModel': { en: 'Hardware model', de: 'Hardwaremodell', fr: 'Modèle du matériel', nl: 'Hardwaremodel' },
  'field.OprSSN': { en: 'Fallback operator social security number', de: 'Ersatz-Sozialversicherungsnummer des Bedieners', fr: 'Numéro de sécurité sociale de l\'opérateur par défaut', nl: 'Standaard BSN van de bediener' },
  'field.Lang': { en: 'Receipt language', de: 'Belegsprache', fr: 'Langue du ticket', nl: 'Taal van de bon' },
  'field.Id': { en: 'Id', de: 'Kennung', fr: 'Identifiant', nl: 'Id' },
  'field.ContactName': { en: 'Contact name', de: 'Ansprechpartner', fr: 'Nom du contact', nl: 'Contactpersoon' },
  'field.ContactTelephone': { en: 'Contact telephone', de: 'Telefon', fr: 'Téléphone du contact', nl: 'Telefoon contact' },
  'field.ContactElectronicMail': { en: 'Contact e-mail', de: 'E-Mail', fr: 'E-mail du contact', nl: 'E-mail contact' },
  'field.PaymentTerms': { en: 'Payment terms', de: 'Zahlungsbedingungen', fr: 'Conditions de paiement', nl: 'Betalingsvoorwaarden' },
  'field.AccountName': { en: 'Account holder', de: 'Kontoinhaber', fr: 'Titulaire du compte', nl: 'Rekeninghouder' },
  'field.AccountIBAN': { en: 'IBAN', de: 'IBAN', fr: 'IBAN', nl: 'IBAN' },
  'field.AccountBIC': { en: 'BIC', de: 'BIC', fr: 'BIC', nl: 'BIC' },
  'field.PaymentPeriod': { en: 'Payment period (days)', de: 'Zahlungsfrist (Tage)', fr: 'Délai de paiement (jours)', nl: 'Betalingstermijn (dagen)' },
};
