/**
 * Texts of the portal's answers in English and German: error codes (errorMessage is English,
 * errorMessageTranslated in the caller's language) and the per-field validation messages.
 */
export type Lang = 'en' | 'de';

export type PortalErrorCode =
  | 'VALIDATION_FAILED'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'INVALID_STATE'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'INTERNAL'
  | 'SERVICE_UNAVAILABLE';

export const ERROR_STATUS: Record<PortalErrorCode, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  INVALID_STATE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
};

type Texts = Record<Lang, (p: Record<string, string | number>) => string>;

const ERRORS: Record<PortalErrorCode, Texts> = {
  VALIDATION_FAILED: { en: () => 'The request is not valid; see validationErrors.', de: () => 'Die Anfrage ist ungültig; siehe validationErrors.' },
  UNAUTHORIZED: { en: (p) => `Not authenticated: ${p.detail}.`, de: (p) => `Nicht angemeldet: ${p.detail}.` },
  FORBIDDEN: { en: (p) => `The API client lacks the permission ${p.permission} on ${p.target}.`, de: (p) => `Dem API-Client fehlt die Berechtigung ${p.permission} für ${p.target}.` },
  NOT_FOUND: { en: (p) => `${p.what} not found.`, de: (p) => `${p.what} nicht gefunden.` },
  CONFLICT: { en: () => 'The request conflicts with existing data; see validationErrors.', de: () => 'Die Anfrage widerspricht vorhandenen Daten; siehe validationErrors.' },
  INVALID_STATE: { en: (p) => `Not possible in the current state: ${p.detail}.`, de: (p) => `Im aktuellen Zustand nicht möglich: ${p.detail}.` },
  PAYLOAD_TOO_LARGE: { en: (p) => `The request body is larger than ${p.limit} bytes.`, de: (p) => `Der Inhalt der Anfrage ist größer als ${p.limit} Bytes.` },
  UNSUPPORTED_MEDIA_TYPE: {
    en: (p) => `The content type ${p.type} is not supported; send application/json.`,
    de: (p) => `Der Inhaltstyp ${p.type} wird nicht unterstützt; senden Sie application/json.`,
  },
  INTERNAL: { en: () => 'An unexpected error occurred; it has been logged.', de: () => 'Ein unerwarteter Fehler ist aufgetreten; er wurde protokolliert.' },
  SERVICE_UNAVAILABLE: {
    en: () => 'The portal database is not available at the moment; try again later.',
    de: () => 'Die Datenbank des Portals ist derzeit nicht erreichbar; bitte später erneut versuchen.',
  },
};

export function errorText(code: PortalErrorCode, lang: Lang, params: Record<string, string | number> = {}): string {
  return ERRORS[code][lang](params);
}

/** Validation messages by key. */
const FIELD: Record<string, Texts> = {
  required: { en: () => 'is required', de: () => 'ist erforderlich' },
  minLength: { en: (p) => `must be at least ${p.limit} characters long`, de: (p) => `muss mindestens ${p.limit} Zeichen lang sein` },
  maxLength: { en: (p) => `must be at most ${p.limit} characters long`, de: (p) => `darf höchstens ${p.limit} Zeichen lang sein` },
  minimum: { en: (p) => `must be at least ${p.limit}`, de: (p) => `muss mindestens ${p.limit} sein` },
  maximum: { en: (p) => `must be at most ${p.limit}`, de: (p) => `darf höchstens ${p.limit} sein` },
  type: { en: (p) => `must be of type ${p.type}`, de: (p) => `muss vom Typ ${p.type} sein` },
  enum: { en: (p) => `must be one of ${p.values}`, de: (p) => `muss einer dieser Werte sein: ${p.values}` },
  email: { en: () => 'must be a valid e-mail address', de: () => 'muss eine gültige E-Mail-Adresse sein' },
  dateTime: { en: () => 'must be a date-time (ISO 8601, e.g. 2026-11-23T10:00:00Z)', de: () => 'muss ein Zeitpunkt sein (ISO 8601, z. B. 2026-11-23T10:00:00Z)' },
  format: { en: (p) => `must match the format ${p.format}`, de: (p) => `muss dem Format ${p.format} entsprechen` },
  nul: { en: () => 'must not contain the character U+0000', de: () => 'darf das Zeichen U+0000 nicht enthalten' },
  surrogate: {
    en: () => 'must not contain a lone UTF-16 surrogate (\\uD800 to \\uDFFF without its pair)',
    de: () => 'darf kein einzelnes UTF-16-Surrogat enthalten (\\uD800 bis \\uDFFF ohne sein Gegenstück)',
  },
  separator: { en: () => 'must not contain the character U+001F', de: () => 'darf das Zeichen U+001F nicht enthalten' },
  pattern: { en: () => 'has characters that are not allowed', de: () => 'enthält nicht erlaubte Zeichen' },
  body: { en: () => 'a JSON object is required', de: () => 'ein JSON-Objekt ist erforderlich' },
  json: { en: (p) => `is not valid JSON: ${p.detail}`, de: (p) => `ist kein gültiges JSON: ${p.detail}` },
  countryCode: { en: () => 'must be an ISO 3166-1 alpha-2 country code', de: () => 'muss ein Ländercode nach ISO 3166-1 alpha-2 sein' },
  locationIdentification: {
    en: () => 'may contain only letters A-Z and a-z, digits and - + < > # . , =',
    de: () => 'darf nur die Buchstaben A-Z und a-z, Ziffern und - + < > # . , = enthalten',
  },
  locationIdentificationTaken: { en: () => 'is already used by another location of this company', de: () => 'wird bereits von einem anderen Standort dieses Unternehmens verwendet' },
  taxIdFormat: { en: (p) => `is not a valid tax id of ${p.country} (expected ${p.expected})`, de: (p) => `ist keine gültige Steuernummer von ${p.country} (erwartet: ${p.expected})` },
  taxIdCheckDigit: { en: () => 'has a wrong check digit', de: () => 'hat eine falsche Prüfziffer' },
  taxIdCountry: { en: (p) => `starts with ${p.prefix} but the company's country is ${p.country}`, de: (p) => `beginnt mit ${p.prefix}, aber das Land des Unternehmens ist ${p.country}` },
  taxIdLocked: {
    en: () => 'can only be changed when the company ignores tax id validation (ignoreTaxId)',
    de: () => 'kann nur geändert werden, wenn das Unternehmen die Steuernummernprüfung ignoriert (ignoreTaxId)',
  },
  testUndo: { en: () => 'Test cannot be undone (a test entity stays Test or becomes Deactivated)', de: () => 'Test kann nicht rückgängig gemacht werden (eine Test-Einheit bleibt Test oder wird Deactivated)' },
  stateOnCreate: { en: () => 'must be Productive or Test on create', de: () => 'muss beim Anlegen Productive oder Test sein' },
  parentKind: { en: (p) => `must be the id of ${p.kind}`, de: (p) => `muss die Id einer Einheit der Art ${p.kind} sein` },
  parentMissing: { en: () => 'no such entity', de: () => 'keine solche Einheit' },
  parentFixed: { en: () => 'cannot be changed (an entity keeps its parent)', de: () => 'kann nicht geändert werden (eine Einheit behält ihre übergeordnete Einheit)' },
  parentDeactivated: { en: () => 'is deactivated; nothing can be created under it', de: () => 'ist deaktiviert; darunter kann nichts angelegt werden' },
  yearPast: { en: (p) => `must be the current year (${p.year}) or later`, de: (p) => `muss das laufende Jahr (${p.year}) oder später sein` },
  future: { en: () => 'must be in the future', de: () => 'muss in der Zukunft liegen' },
  orderByField: { en: (p) => `must be one of ${p.values}`, de: (p) => `muss einer dieser Werte sein: ${p.values}` },
  languageCode: { en: () => 'must be a language code such as en, de or en-US', de: () => 'muss ein Sprachcode wie en, de oder en-US sein' },
  grantPermission: { en: (p) => `you can only grant permissions you hold yourself together with ManageCompany (${p.permission} on ${p.entityId})`, de: (p) => `Sie können nur Berechtigungen vergeben, die Sie selbst zusammen mit ManageCompany halten (${p.permission} auf ${p.entityId})` },
};

export function fieldText(key: string, lang: Lang, params: Record<string, string | number> = {}): string {
  const t = FIELD[key];
  return t ? t[lang](params) : key;
}

/** The caller's language from Accept-Language (German when it prefers de, else English). */
export function langOf(acceptLanguage: string | undefined): Lang {
  if (!acceptLanguage) return 'en';
  const ranked = acceptLanguage
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find((x) => x !== undefined);
      return { tag: tag.toLowerCase(), q: q === undefined ? 1 : Number(q) };
    })
    .filter((x) => x.tag && x.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of ranked) {
    if (tag.startsWith('de')) return 'de';
    if (tag.startsWith('en')) return 'en';
  }
  return 'en';
}
