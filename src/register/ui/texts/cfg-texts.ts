/** Texts of the base-data page (en, de, fr, nl); the field labels are in ../cfg-fields.ts. */
import type { Texts } from '../i18n.js';

export const CFG_TEXTS: Texts = {
  'cfg.title': { en: 'Base data', de: 'Stammdaten', fr: 'Données de base', nl: 'Basisgegevens' },
  'cfg.show': { en: 'Show', de: 'Anzeigen', fr: 'Afficher', nl: 'Tonen' },
  'cfg.intro': {
    en: 'The base data (Cfg) of register {rn}: printed on receipts and reported to the authority. Every change is recorded in the journal.',
    de: 'Die Stammdaten (Cfg) der Kasse {rn}: Sie erscheinen auf den Belegen und in den Meldungen an die Behörde. Jede Änderung wird im Journal aufgezeichnet.',
    fr: 'Les données de base (Cfg) de la caisse {rn} : imprimées sur les tickets et déclarées à l\'administration. Chaque modification est consignée dans le journal.',
    nl: 'De basisgegevens (Cfg) van kassa {rn}: ze staan op de bonnen en in de meldingen aan de overheid. Elke wijziging wordt in het journaal vastgelegd.',
  },
  'cfg.required': { en: 'required for fiscal receipts', de: 'für fiskalische Belege erforderlich', fr: 'obligatoire pour les tickets fiscaux', nl: 'verplicht voor fiscale bonnen' },
  'cfg.otherName': { en: 'Other field', de: 'Weiteres Feld', fr: 'Autre champ', nl: 'Ander veld' },
  'cfg.otherValue': { en: 'Value', de: 'Wert', fr: 'Valeur', nl: 'Waarde' },
  'cfg.otherHelp': {
    en: 'Fields this form does not list are kept here; an empty name removes the row.',
    de: 'Felder, die dieses Formular nicht kennt, stehen hier; ein leerer Name entfernt die Zeile.',
    fr: 'Les champs que ce formulaire ne connaît pas sont conservés ici ; un nom vide supprime la ligne.',
    nl: 'Velden die dit formulier niet kent, staan hier; een lege naam verwijdert de rij.',
  },
  'cfg.newItem': { en: 'Add one', de: 'Neu hinzufügen', fr: 'Ajouter', nl: 'Nieuw toevoegen' },
  'cfg.remove': { en: 'remove', de: 'entfernen', fr: 'supprimer', nl: 'verwijderen' },
  'cfg.otherParts': { en: 'Other parts', de: 'Weitere Teile', fr: 'Autres parties', nl: 'Andere delen' },
  'cfg.otherPartsHelp': {
    en: 'Parts this form does not edit; saving keeps them as they are.',
    de: 'Teile, die dieses Formular nicht bearbeitet; Speichern behält sie unverändert.',
    fr: 'Parties que ce formulaire ne modifie pas ; l\'enregistrement les conserve telles quelles.',
    nl: 'Delen die dit formulier niet bewerkt; opslaan laat ze ongewijzigd.',
  },
  'cfg.recorded': { en: 'Journal record SQ {sq}.', de: 'Journaleintrag SQ {sq}.', fr: 'Enregistrement du journal SQ {sq}.', nl: 'Journaalrecord SQ {sq}.' },
  'cfg.identical': {
    en: 'No change: the base data are identical, nothing was recorded.',
    de: 'Keine Änderung: Die Stammdaten sind gleich, nichts wurde aufgezeichnet.',
    fr: 'Aucune modification : les données de base sont identiques, rien n\'a été enregistré.',
    nl: 'Geen wijziging: de basisgegevens zijn gelijk, er is niets vastgelegd.',
  },
  'cfg.missing': {
    en: '{field} is missing; it is required for fiscal receipts.',
    de: '{field} fehlt; es ist für fiskalische Belege erforderlich.',
    fr: '{field} manque ; il est obligatoire pour les tickets fiscaux.',
    nl: '{field} ontbreekt; het is verplicht voor fiscale bonnen.',
  },
  'cfg.multiPos': {
    en: 'Several registers (RN_TT): choose a register above, or save without one and the register follows from Cmp.TaxId, Loc.TL and Trm.TT (as POST /cfg does).',
    de: 'Mehrere Kassen (RN_TT): Oben eine Kasse wählen, oder ohne Auswahl speichern; dann ergibt sich die Kasse aus Cmp.TaxId, Loc.TL und Trm.TT (wie bei POST /cfg).',
    fr: 'Plusieurs caisses (RN_TT) : choisissez une caisse ci-dessus, ou enregistrez sans choix et la caisse découle de Cmp.TaxId, Loc.TL et Trm.TT (comme POST /cfg).',
    nl: 'Meerdere kassa\'s (RN_TT): kies hierboven een kassa, of sla op zonder keuze en de kassa volgt uit Cmp.TaxId, Loc.TL en Trm.TT (zoals bij POST /cfg).',
  },
  'cfg.apiWarning': { en: 'Note from the service: {text}', de: 'Hinweis des Dienstes (englisch): {text}', fr: 'Remarque du service (en anglais) : {text}', nl: 'Opmerking van de dienst (Engels): {text}' },
};
