/**
 * Languages of the browser pages: en, de, fr, nl. The language is `?lang=` (kept in the cookie `efr_lang`), else
 * that cookie, else the browser's Accept-Language, else English. Texts are tables `key -> {en, de, fr, nl}`; each
 * page module has its own and merges it with the common one. `{name}` in a text is replaced by the parameter.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export const UI_LANGS = ['en', 'de', 'fr', 'nl'] as const;
export type UiLang = (typeof UI_LANGS)[number];
export type Texts = Readonly<Record<string, Readonly<Record<UiLang, string>>>>;
export type Translate = (key: string, params?: Readonly<Record<string, string | number>>) => string;

export const LANG_COOKIE = 'efr_lang';

const isLang = (v: string | undefined): v is UiLang => v !== undefined && (UI_LANGS as readonly string[]).includes(v);

function cookieOf(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k !== name) continue;
    // a malformed value (`efr_lang=%`) is no language: the next source decides
    try {
      return decodeURIComponent(v.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The page language of a request; a `?lang=` choice is remembered in a cookie. */
export function uiLangOf(req: FastifyRequest, res?: FastifyReply): UiLang {
  const asked = ((req.query ?? {}) as Record<string, string | undefined>).lang?.toLowerCase();
  if (isLang(asked)) {
    res?.header('set-cookie', `${LANG_COOKIE}=${asked}; Path=/; Max-Age=31536000; SameSite=Lax`);
    return asked;
  }
  const kept = cookieOf(req, LANG_COOKIE);
  if (isLang(kept)) return kept;
  for (const item of (req.headers['accept-language'] ?? '').split(',')) {
    const code = item.trim().slice(0, 2).toLowerCase();
    if (isLang(code)) return code;
  }
  return 'en';
}

/** A translator over these tables (the first that has the key wins); an unknown key shows itself. */
export function translator(lang: UiLang, ...tables: Texts[]): Translate {
  return (key, params) => {
    let text = key;
    for (const t of tables) {
      const entry = t[key];
      if (entry) {
        text = entry[lang] || entry.en;
        break;
      }
    }
    return params ? text.replace(/\{(\w+)\}/g, (m, name: string) => (params[name] !== undefined ? String(params[name]) : m)) : text;
  };
}

/** Texts every page shares: navigation, buttons, messages. */
export const COMMON: Texts = {
  'app.title': { en: 'Fiscal register service', de: 'Fiskaldienst', fr: 'Service de caisse fiscale', nl: 'Fiscale kassadienst' },
  'nav.profile': { en: 'Profile', de: 'Profil', fr: 'Profil', nl: 'Profiel' },
  'nav.cfg': { en: 'Base data', de: 'Stammdaten', fr: 'Données de base', nl: 'Basisgegevens' },
  'nav.status': { en: 'Status', de: 'Status', fr: 'État', nl: 'Status' },
  'nav.journal': { en: 'Journal', de: 'Journal', fr: 'Journal', nl: 'Journaal' },
  'nav.more': { en: 'More', de: 'Mehr', fr: 'Plus', nl: 'Meer' },
  'nav.layouts': { en: 'Receipt layouts', de: 'Belegvorlagen', fr: 'Modèles de ticket', nl: 'Bonsjablonen' },
  'nav.service': { en: 'Backup settings', de: 'Sicherungseinstellungen', fr: 'Paramètres de sauvegarde', nl: 'Back-upinstellingen' },
  'nav.restore': { en: 'Restore', de: 'Wiederherstellen', fr: 'Restauration', nl: 'Herstellen' },
  'nav.language': { en: 'Language', de: 'Sprache', fr: 'Langue', nl: 'Taal' },
  'form.save': { en: 'Save', de: 'Speichern', fr: 'Enregistrer', nl: 'Opslaan' },
  'form.search': { en: 'Search', de: 'Suchen', fr: 'Rechercher', nl: 'Zoeken' },
  'form.saved': { en: 'Saved.', de: 'Gespeichert.', fr: 'Enregistré.', nl: 'Opgeslagen.' },
  'form.notSaved': { en: 'Not saved: {reason}', de: 'Nicht gespeichert: {reason}', fr: 'Non enregistré : {reason}', nl: 'Niet opgeslagen: {reason}' },
  'form.badOrigin': {
    en: 'The form was not sent from this service\'s own page (reload the page and send it again).',
    de: 'Das Formular kam nicht von der Seite dieses Dienstes (Seite neu laden und erneut senden).',
    fr: 'Le formulaire ne vient pas de la page de ce service (rechargez la page et renvoyez-le).',
    nl: 'Het formulier kwam niet van de pagina van deze dienst (laad de pagina opnieuw en verstuur het opnieuw).',
  },
  'register.label': { en: 'Register', de: 'Kasse', fr: 'Caisse', nl: 'Kassa' },
  'none': { en: 'none', de: 'keine', fr: 'aucun', nl: 'geen' },
  'page.badRnTitle': { en: 'Unknown register', de: 'Unbekannte Kasse', fr: 'Caisse inconnue', nl: 'Onbekende kassa' },
  'page.badRn': {
    en: 'This register number cannot be used: it has spaces around it, is empty or is given twice (rn=).',
    de: 'Diese Kassennummer kann nicht verwendet werden: Sie hat Leerzeichen am Anfang oder Ende, ist leer oder mehrfach angegeben (rn=).',
    fr: 'Ce numéro de caisse ne peut pas être utilisé : il a des espaces au début ou à la fin, est vide ou est donné deux fois (rn=).',
    nl: 'Dit kassanummer kan niet worden gebruikt: het heeft spaties aan het begin of einde, is leeg of is twee keer opgegeven (rn=).',
  },
  'page.badRnBack': { en: 'To the default register', de: 'Zur Standardkasse', fr: 'Vers la caisse par défaut', nl: 'Naar de standaardkassa' },
};
