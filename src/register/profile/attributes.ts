/**
 * Profile attributes: a space separated list of `name`, `name=value` or `name="a b"`,
 * names case-insensitive; a name without value means true. Parsed once into a typed object.
 */
export type AttributeMap = ReadonlyMap<string, string>;

/** One attribute of a list as written: its name as spelled, its value (`true` for a bare name) and its text. */
export interface AttributeEntry {
  name: string;
  value: string;
  written: string;
}

/** The attributes of a list in their order, as written. */
export function attributeEntries(text: string | undefined): AttributeEntry[] {
  const re = /([^\s=]+)(?:=(?:"([^"]*)"|'([^']*)'|(\S*)))?/g;
  return [...(text ?? '').matchAll(re)].map((m) => ({ name: m[1] as string, value: m[2] ?? m[3] ?? m[4] ?? 'true', written: m[0] }));
}

export function parseAttributes(text: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of attributeEntries(text)) out.set(e.name.toLowerCase(), e.value);
  return out;
}

/** A time of day attribute: `H:MM`, `HH:MM` or `HH:MM:SS` as `HH:MM:SS`; `NO` as null (disabled); undefined when not a time. */
export function timeOfDay(text: string | undefined): string | null | undefined {
  if (text !== undefined && text.trim().toUpperCase() === 'NO') return null;
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec((text ?? '').trim());
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? '0') > 59) return undefined;
  return `${(m[1] as string).padStart(2, '0')}:${m[2] as string}:${m[3] ?? '00'}`;
}

export function formatAttributes(map: AttributeMap): string {
  return [...map].map(([k, v]) => (v === 'true' ? k : /\s/.test(v) ? `${k}="${v}"` : `${k}=${v}`)).join(' ');
}

/** The attributes the register service acts on, typed. */
export interface Settings {
  normalizeDays: number;
  respond200: boolean;
  testRc?: 'BAD' | 'NO';
  ioNosync: boolean;
  /** Tra_DH: the /register answer carries the document handle (online mode; src/register/recorder/tra-dh.ts) */
  traDh: boolean;
  /** eDoc_testNormalize: a plain 2-letter ESR.DD is journaled with the suffix -TEST */
  eDocTestNormalize: boolean;
  raw: AttributeMap;
}

function truthy(v: string | undefined): boolean {
  return v !== undefined && !['false', '0', 'no', 'off'].includes(v.toLowerCase());
}

export function settingsOf(raw: AttributeMap): Settings {
  const ndText = raw.get('normalize_d') ?? '';
  const testRc = raw.get('test_rc')?.toUpperCase();
  const s: Settings = {
    normalizeDays: /^\d{1,5}$/.test(ndText) && Number(ndText) > 0 ? Number(ndText) : 7,
    respond200: truthy(raw.get('httpserver_respond200')),
    ioNosync: truthy(raw.get('io_nosync')),
    traDh: truthy(raw.get('tra_dh')),
    eDocTestNormalize: truthy(raw.get('edoc_testnormalize')),
    raw,
  };
  if (testRc === 'BAD' || testRc === 'NO') s.testRc = testRc;
  return s;
}
