/**
 * The technical events journal (JET) of NF525: its event codes. The certification referential's
 * own code table is not public; these codes are ours, stable and documented in
 * docs/countries/fr.md ("JET"). Never renumber them: exported journals name them.
 */
export const JET = {
  START: { code: '10', label: 'Démarrage du service' },
  STOP: { code: '20', label: 'Arrêt du service' },
  INIT: { code: '30', label: 'Initialisation du registre' },
  CLOSE_DAY: { code: '40', label: 'Clôture journalière' },
  CLOSE_MONTH: { code: '41', label: 'Clôture mensuelle' },
  CLOSE_YEAR: { code: '42', label: 'Clôture annuelle' },
  EXPORT: { code: '50', label: 'Export fiscal' },
  ARCHIVE: { code: '60', label: 'Archivage' },
  CONFIG: { code: '70', label: 'Modification de la configuration' },
  ERROR: { code: '90', label: 'Erreur' },
} as const;

export type JetEventKind = keyof typeof JET;

/** An event to journal: its kind and a free detail text (what was exported, the error...). */
export interface JetEvent {
  kind: JetEventKind;
  detail: string;
}
