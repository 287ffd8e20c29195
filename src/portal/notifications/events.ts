/**
 * The register notifications the portal raises: event codes, their levels, who is mailed,
 * and their texts in English and German. The long text names `CurrentLevel` and `CompanyType` (portal-api.md,
 * "Notification"): the level of the escalation system and the company's type (Productive or Test).
 *
 * Levels: 1 information, 2 warning, 3 critical (the highest; an escalation stops there).
 */
import type { ContactType } from '../store/types.js';

/** Codes of notifications (what the portal stores and lists). */
export const NOTIFICATION_CODES = ['REGISTER_SILENT', 'TSE_FAILURE', 'SIGNATURE_DEVICE_FAILURE', 'TSE_ACTIVATED', 'DISK_NEARLY_FULL'] as const;
export type NotificationCode = (typeof NOTIFICATION_CODES)[number];

/** Codes an instance reports (POST /api/v1/recorder/events): a notification code or the end of one's condition. */
export const INSTANCE_EVENT_CODES = [
  'TSE_FAILURE', 'TSE_RECOVERED', 'SIGNATURE_DEVICE_FAILURE', 'SIGNATURE_DEVICE_RECOVERED', 'TSE_ACTIVATED', 'DISK_NEARLY_FULL', 'DISK_OK',
] as const;
export type InstanceEventCode = (typeof INSTANCE_EVENT_CODES)[number];

/** A reported code that ends an open notification (its condition is over). */
export const CLEARS: Partial<Record<InstanceEventCode, NotificationCode>> = {
  TSE_RECOVERED: 'TSE_FAILURE',
  SIGNATURE_DEVICE_RECOVERED: 'SIGNATURE_DEVICE_FAILURE',
  DISK_OK: 'DISK_NEARLY_FULL',
};

export const MAX_LEVEL = 3;
export type Language = 'en' | 'de';
export const LANGUAGES: readonly Language[] = ['en', 'de'];

export interface TextParams {
  registerNumber: string;
  companyName: string;
  /** Productive or Test */
  companyType: string;
  level: number;
  /** ISO time the condition was first seen (the notification's initialTimestamp) */
  since: string;
  /** what the instance reported, if anything (already shortened) */
  detail: string | null;
  /** REGISTER_SILENT: the configured time without contact, in hours */
  silentHours?: number;
}

export interface EventKind {
  code: NotificationCode;
  initialLevel: number;
  /** raised again (a level up, mailed again) while still open after the escalation period */
  escalates: boolean;
  /** a notice, not a condition: stored closed at once (listed, never escalated; a new activation is a new notice) */
  closedAtOnce: boolean;
  /** contacts of these types get the mail */
  contactTypes: readonly ContactType[];
  text(lang: Language, p: TextParams): { short: string; long: string };
}

const LEVEL_NAMES: Record<Language, readonly string[]> = {
  en: ['', 'information', 'warning', 'critical'],
  de: ['', 'Information', 'Warnung', 'kritisch'],
};

function levelName(lang: Language, level: number): string {
  return LEVEL_NAMES[lang][Math.min(Math.max(level, 1), MAX_LEVEL)] ?? '';
}

/** `CurrentLevel: 2 (warning). CompanyType: Productive.` in either language (the names are the spec's fields). */
function tail(lang: Language, p: TextParams): string {
  return ` CurrentLevel: ${p.level} (${levelName(lang, p.level)}). CompanyType: ${p.companyType}.`;
}

function detailOf(lang: Language, p: TextParams): string {
  if (!p.detail) return '';
  return lang === 'de' ? ` Meldung der Instanz: ${p.detail}.` : ` Reported by the instance: ${p.detail}.`;
}

/** 2026-03-01 10:00 UTC */
function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

const TECHNICAL: readonly ContactType[] = ['TechnicalContact'];

export const EVENT_KINDS: Record<NotificationCode, EventKind> = {
  REGISTER_SILENT: {
    code: 'REGISTER_SILENT',
    initialLevel: 1,
    escalates: true,
    closedAtOnce: false,
    contactTypes: TECHNICAL,
    text: (lang, p) => lang === 'de'
      ? {
        short: `Kasse ${p.registerNumber} meldet sich nicht`,
        long: `Die Kasse ${p.registerNumber} der Firma ${p.companyName} hat sich seit ${when(p.since)} (länger als ${p.silentHours ?? '?'} h) nicht beim Portal gemeldet: keine Journaldaten, kein Kontakt. Bitte Rechner, Netzwerk und den Registrierkassendienst prüfen.${tail(lang, p)}`,
      }
      : {
        short: `Register ${p.registerNumber} not heard from`,
        long: `Register ${p.registerNumber} of ${p.companyName} has not contacted the portal since ${when(p.since)} (more than ${p.silentHours ?? '?'} h): no journal records, no contact. Please check the computer, its network and the register service.${tail(lang, p)}`,
      },
  },
  TSE_FAILURE: {
    code: 'TSE_FAILURE',
    initialLevel: 2,
    escalates: true,
    closedAtOnce: false,
    contactTypes: TECHNICAL,
    text: (lang, p) => lang === 'de'
      ? {
        short: `TSE-Ausfall bei Kasse ${p.registerNumber}`,
        long: `Die technische Sicherheitseinrichtung (TSE) der Kasse ${p.registerNumber} der Firma ${p.companyName} ist seit ${when(p.since)} ausgefallen ("TSE ausgefallen"); Vorgänge werden ohne TSE-Signatur aufgezeichnet. Ein Ausfall, der länger dauert, ist dem Finanzamt zu melden.${detailOf(lang, p)}${tail(lang, p)}`,
      }
      : {
        short: `TSE failure at register ${p.registerNumber}`,
        long: `The technical security system (TSE) of register ${p.registerNumber} of ${p.companyName} has failed since ${when(p.since)} ("TSE ausgefallen"); transactions are recorded without a TSE signature. A lasting failure must be reported to the tax office.${detailOf(lang, p)}${tail(lang, p)}`,
      },
  },
  SIGNATURE_DEVICE_FAILURE: {
    code: 'SIGNATURE_DEVICE_FAILURE',
    initialLevel: 2,
    escalates: true,
    closedAtOnce: false,
    contactTypes: TECHNICAL,
    text: (lang, p) => lang === 'de'
      ? {
        short: `Signatureinheit der Kasse ${p.registerNumber} ausgefallen`,
        long: `Die Signatureinheit der Kasse ${p.registerNumber} der Firma ${p.companyName} ist seit ${when(p.since)} ausgefallen; Belege werden ohne Signatur erstellt.${detailOf(lang, p)}${tail(lang, p)}`,
      }
      : {
        short: `Signature device of register ${p.registerNumber} failed`,
        long: `The signature device of register ${p.registerNumber} of ${p.companyName} has failed since ${when(p.since)}; receipts are made without a signature.${detailOf(lang, p)}${tail(lang, p)}`,
      },
  },
  TSE_ACTIVATED: {
    code: 'TSE_ACTIVATED',
    initialLevel: 1,
    escalates: false,
    closedAtOnce: true,
    // in Germany a TSE in use must be reported to the tax office (ELSTER): the ELSTER contact needs to know
    contactTypes: ['ElsterContact', 'TechnicalContact'],
    text: (lang, p) => lang === 'de'
      ? {
        short: `TSE der Kasse ${p.registerNumber} in Betrieb genommen`,
        long: `Für die Kasse ${p.registerNumber} der Firma ${p.companyName} wurde am ${when(p.since)} eine TSE in Betrieb genommen. Die Kasse und ihre TSE sind dem Finanzamt zu melden (§ 146a Abs. 4 AO, über ELSTER).${detailOf(lang, p)}${tail(lang, p)}`,
      }
      : {
        short: `TSE of register ${p.registerNumber} activated`,
        long: `A TSE was put into service for register ${p.registerNumber} of ${p.companyName} on ${when(p.since)}. The register and its TSE must be reported to the tax office (section 146a (4) AO, through ELSTER).${detailOf(lang, p)}${tail(lang, p)}`,
      },
  },
  DISK_NEARLY_FULL: {
    code: 'DISK_NEARLY_FULL',
    initialLevel: 1,
    escalates: true,
    closedAtOnce: false,
    contactTypes: TECHNICAL,
    text: (lang, p) => lang === 'de'
      ? {
        short: `Speicher der Kasse ${p.registerNumber} fast voll`,
        long: `Der Speicher des Registrierkassendienstes der Kasse ${p.registerNumber} der Firma ${p.companyName} ist seit ${when(p.since)} fast voll. Ist er voll, werden keine Vorgänge mehr angenommen. Bitte Platz schaffen oder das Kontingent erhöhen.${detailOf(lang, p)}${tail(lang, p)}`,
      }
      : {
        short: `Disk of register ${p.registerNumber} nearly full`,
        long: `The storage of the register service of register ${p.registerNumber} of ${p.companyName} has been nearly full since ${when(p.since)}. When it is full, no transactions are accepted. Please free space or raise the quota.${detailOf(lang, p)}${tail(lang, p)}`,
      },
  },
};

export function textsFor(kind: EventKind, p: TextParams): Record<Language, { short: string; long: string }> {
  return { en: kind.text('en', p), de: kind.text('de', p) };
}

/** de for a German language code (de, de-AT, ...), else en. */
export function languageOf(languageCode: string | null | undefined): Language {
  return languageCode && /^de\b/i.test(languageCode) ? 'de' : 'en';
}

const TAIL = / CurrentLevel: \d+ \([^)]*\)\. CompanyType: ([^.]*)\.$/;

/** The stored texts with the level in their long text changed (an escalation keeps what else they say). */
export function withLevel(texts: Record<string, { short: string; long: string }>, level: number): Record<string, { short: string; long: string }> {
  const out: Record<string, { short: string; long: string }> = {};
  for (const [code, t] of Object.entries(texts)) {
    const lang = languageOf(code);
    out[code] = { short: t.short, long: t.long.replace(TAIL, (_all, type: string) => ` CurrentLevel: ${level} (${levelName(lang, level)}). CompanyType: ${type}.`) };
  }
  return out;
}
