import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CODES, type ErrorParams, FiscalError, type Lang, errorDef, message } from './errors.js';

const OTHER_LANGS: readonly Exclude<Lang, 'en'>[] = ['de', 'fr', 'nl'];

/** Words that are English and no word of German, French or Dutch: one of them in a translated message is a leftover. */
const ENGLISH_WORDS = ['the', 'must', 'got', 'and', 'with', 'cannot', 'should', 'which', 'been', 'expected', 'whole', 'seconds', 'setting', 'blocked', 'nothing', 'done', 'another', 'default', 'inherits', 'none', 'printer\'s', 'by'];

/** Values of every parameter the messages name; they stand for names, numbers and data, the same in every language. */
const NAMES: ErrorParams = {
  field: 'Attributes.Printer_Port', value: 'x1', id: '1/1/7', format: 'JSON', actual: '12.40', net: '10.00', tamt: '2.00', amt: '12.00',
  group: 'A', days: 7, now: '2026-11-25', sq: 42, asked: '2', left: '1', limit: 3, badge: 'B-1', rn: 'AT1', origin: 'https://shop.example',
  host: 'kasse.local', seconds: 30, realm: 'EFR', authority: 'FINA', code: 'ZKI', scope: 'TaxId ATU1, TL 1, TT 1',
};

/**
 * The samples every code is tried with: descriptions as the service's code writes them (known to the phrase
 * table, with values in them, and unknown ones), names with words in them, and texts per language.
 */
const SAMPLES: readonly ErrorParams[] = [
  { ...NAMES, expected: 'host or host:port of the printer (port 9100 by default)', detail: 'the fiscal certificate 0A1B expired on 2026-01-01' },
  { ...NAMES, expected: 'a regular expression (unterminated group)', detail: ' (by name, not *) and credentials in the request' },
  { ...NAMES, expected: 'one of Tra, TraS, TraU', detail: 'at most 40 characters, got 52' },
  { ...NAMES, expected: 'a whole number of seconds, 1 to 3600', detail: 'register AT1 belongs to TaxId ATU2; nothing was done' },
  { ...NAMES, expected: '12.50', detail: 'no status answer to DLE EOT 4', field: 'Attributes.Printer (as register A inherits it)', scope: 'TaxId ATU1, TL (none), TT 1', code: 'protective code' },
  { ...NAMES, expected: 'a date YYYY-MM-DD', detail: 'an ISO 3166 alpha-2 country code such as AT, got "Austria"', field: 'last transaction' },
  { ...NAMES, expected: 'text', detail: '4.60 is not Qty 2 x Pri 2.30 = 4.60x' },
  { ...NAMES, expected: { en: 'a colour', de: 'eine Farbe', fr: 'une couleur', nl: 'een kleur' }, detail: { en: 'the ink is dry', de: 'die Tinte ist trocken', fr: 'l\'encre est sèche', nl: 'de inkt is droog' } },
];

/** A sample as a code takes it: what it shows as given (amounts, an authority's answer) is such a value. */
function sampleFor(code: (typeof ERROR_CODES)[number], params: ErrorParams): ErrorParams {
  const asGiven = errorDef(code).asGiven ?? [];
  return { ...params, ...Object.fromEntries(asGiven.map((k) => [k, k === 'detail' ? 's006 Neispravan OIB' : '12.50'])) };
}

/** The text has the fragment as words of its own (`text` in "un texte" is none). */
function containsWords(text: string, fragment: string): boolean {
  const escaped = fragment.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}])${escaped}($|[^\\p{L}])`, 'u').test(text);
}

const placeholders = (template: string): string[] => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string).sort();

/** The English texts of a sample's descriptions and of its names with words in them. */
function englishTexts(params: ErrorParams): string[] {
  return ['expected', 'detail', 'field', 'scope', 'code']
    .flatMap((k) => (params[k] === undefined ? [] : [params[k]]))
    .map((v) => (typeof v === 'object' ? v.en : String(v)))
    .filter((v) => /\b[a-z]{2,}\b/.test(v));
}

test('every code has its message in en, de, fr, nl with the same placeholders; a brief form only leaves out descriptions', () => {
  assert.ok(ERROR_CODES.length > 50);
  for (const code of ERROR_CODES) {
    const def = errorDef(code);
    const en = placeholders(def.msg.en);
    for (const lang of OTHER_LANGS) {
      assert.deepEqual(placeholders(def.msg[lang]), en, `${code} ${lang}`);
      const brief = def.brief?.[lang];
      if (brief !== undefined) {
        const left = en.filter((p) => !placeholders(brief).includes(p));
        assert.ok(left.length > 0 && left.every((p) => p === 'expected' || p === 'detail'), `${code} ${lang} brief leaves out ${left.join(', ')}`);
      }
      if (/[a-z]/i.test(def.msg.en.replace(/\{\w+\}/g, ''))) assert.notEqual(def.msg[lang], def.msg.en, `${code} ${lang} is the English text`);
    }
  }
});

test('every message of every code in de, fr, nl is whole: no English parameter text, no English word, every placeholder filled', () => {
  for (const code of ERROR_CODES) {
    for (const [i, sample] of SAMPLES.entries()) {
      const params = sampleFor(code, sample);
      const english = message(code, 'en', params);
      assert.doesNotMatch(english, /\{\w+\}/, `${code} en, sample ${i}`);
      for (const lang of OTHER_LANGS) {
        const text = message(code, lang, params);
        const where = `${code} ${lang}, sample ${i}: ${text}`;
        assert.doesNotMatch(text, /\{\w*\}/, where);
        for (const fragment of englishTexts(params)) assert.ok(!containsWords(text, fragment), `${where} has "${fragment}"`);
        for (const word of ENGLISH_WORDS) assert.doesNotMatch(text, new RegExp(`(^|[\\s(])${word}\\b`, 'i'), `${where} has "${word}"`);
        if (/[a-z]/i.test(errorDef(code).msg.en.replace(/\{\w+\}/g, ''))) assert.notEqual(text, english, where);
      }
    }
  }
});

test('a known description is translated, an unknown one leaves the brief form, the English message stays as it was', () => {
  const port = { field: 'Attributes.Printer_Port', expected: 'host or host:port of the printer (port 9100 by default)', value: 'a:b:c' };
  assert.equal(message('#INVALID_TYPE', 'en', port), 'Attributes.Printer_Port must be host or host:port of the printer (port 9100 by default), got "a:b:c"');
  assert.equal(message('#INVALID_TYPE', 'de', port), 'Attributes.Printer_Port muss Host oder Host:Port des Druckers (standardmäßig Port 9100) sein, erhalten: "a:b:c"');
  assert.equal(message('#INVALID_TYPE', 'nl', port), 'Attributes.Printer_Port moet host of host:poort van de printer (standaard poort 9100) zijn, ontvangen: "a:b:c"');
  const unknown = { field: 'Cfg.Trm.Lang', expected: 'a language the printer knows', value: 'xx' };
  assert.equal(message('#INVALID_TYPE', 'fr', unknown), 'Cfg.Trm.Lang a une valeur invalide, reçu : « xx »');
  assert.equal(message('#INVALID_TYPE', 'en', unknown), 'Cfg.Trm.Lang must be a language the printer knows, got "xx"');
  assert.equal(message('#INVALID_TYPE', 'de', { field: 'ESR.TN', expected: 'one of A, B', value: 'C' }), 'ESR.TN muss einer der Werte A, B sein, erhalten: "C"');
  assert.equal(message('#BLOCKED', 'de', { field: 'Proxy', rn: 'def' }), 'Die Einstellung Proxy für def ist gesperrt');
  assert.equal(message('#INVALID_VALUE', 'de', { field: 'Cfg.Cmp.Ctry', detail: 'an ISO 3166 alpha-2 country code such as AT, got "Austria"' }), 'Cfg.Cmp.Ctry: ein Ländercode nach ISO 3166 (zwei Buchstaben) wie AT, erhalten: "Austria"');
  assert.equal(message('#INVALID_VALUE', 'nl', { field: 'last transaction', detail: 'SQ 7 is itself a void' }), 'laatste transactie: SQ 7 is zelf een annulering');
  assert.equal(message('#BLOCKED', 'en', { field: 'Proxy', rn: 'def' }), 'Setting of Proxy for def is blocked');
});

test('a FiscalError with texts per language answers in each; its message is the English one', () => {
  const e = new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.Ctry', detail: { en: 'not an ISO country', de: 'kein ISO-Land', fr: 'pas un pays ISO', nl: 'geen ISO-land' } });
  assert.equal(e.message, 'Cfg.Cmp.Ctry: not an ISO country');
  assert.equal(e.localized('de'), 'Cfg.Cmp.Ctry: kein ISO-Land');
  assert.equal(e.localized('fr'), 'Cfg.Cmp.Ctry : pas un pays ISO');
});

test('an authority\'s answer is quoted as it came; the names around it are translated', () => {
  const text = message('#AUTHORITY_REFUSED', 'de', { authority: 'FINA', code: 'protective code', detail: 's006 Neispravan OIB' });
  assert.match(text, /abgelehnt: s006 Neispravan OIB\. Er ist mit seinem Schutzcode im Journal/);
});

test('the printer drivers a refusal names are joined by the language\'s "or", never the English one', () => {
  const printer = { field: 'Attributes.Printer', expected: 'escpos or virtual (or none)', value: 'lpt' };
  assert.equal(message('#INVALID_TYPE', 'de', printer), 'Attributes.Printer muss escpos oder virtual (oder keiner) sein, erhalten: "lpt"');
  assert.equal(message('#INVALID_TYPE', 'fr', printer), 'Attributes.Printer doit être escpos ou virtual (ou aucun), reçu : « lpt »');
  assert.equal(message('#INVALID_TYPE', 'nl', printer), 'Attributes.Printer moet escpos of virtual (of geen) zijn, ontvangen: "lpt"');
  assert.equal(message('#INVALID_TYPE', 'de', { ...printer, expected: 'escpos (or none)' }), 'Attributes.Printer muss escpos (oder keiner) sein, erhalten: "lpt"');
  // three names are no pattern the table knows: the brief form, no English inside
  assert.equal(message('#INVALID_TYPE', 'de', { ...printer, expected: 'a or b or c (or none)' }), 'Attributes.Printer hat einen ungültigen Wert, erhalten: "lpt"');
});
