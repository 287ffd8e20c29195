/**
 * The text of XML documents we write and read: escaping of text content and of attribute values (one rule
 * set for every writer), and the decoding of an XML file's bytes by the encoding its declaration names.
 */

/**
 * Characters XML 1.0 does not allow (its Char production): C0 controls other than tab, line feed and
 * carriage return, U+FFFE, U+FFFF and unpaired surrogates. A parser refuses a document holding one, and no
 * character reference can carry it, so it is dropped.
 */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Surrogate}/gu;

const REFERENCES: Readonly<Record<string, string>> = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\n': '&#10;', '\r': '&#13;', '\t': '&#9;',
};

// eslint-disable-next-line no-control-regex
const TEXT_SPECIAL = /[&<>\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/;
// eslint-disable-next-line no-control-regex
const ATTR_SPECIAL = /[&<>"'\n\r\t\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/;

/**
 * Text content: `&`, `<` and `>` as entities, and a carriage return as `&#13;`, which a parser would
 * otherwise read back as a line feed (XML 1.0, 2.11). Quotes stay as they are: text needs no escaping
 * of them.
 */
export function escapeText(v: string): string {
  // most values need nothing: they are returned without running the replacements (the exports write millions)
  if (!TEXT_SPECIAL.test(v)) return v;
  return v.replace(NOT_XML, '').replace(/[&<>\r]/g, (c) => REFERENCES[c] ?? c);
}

/**
 * An attribute value (for either quote): `&`, `<`, `>`, `"` and `'` as entities, and line feed, carriage
 * return and tab as character references, since a parser normalizes them to spaces (XML 1.0, 3.3.3).
 */
export function escapeAttr(v: string): string {
  if (!ATTR_SPECIAL.test(v)) return v;
  return v.replace(NOT_XML, '').replace(/[&<>"'\n\r\t]/g, (c) => REFERENCES[c] ?? c);
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * The value of escaped text content as a parser reads it, for a value taken out of XML we wrote without
 * parsing the document: the five predefined entities and decimal and hexadecimal character references. An
 * unknown entity is left as it is.
 */
export function unescapeText(v: string): string {
  if (!v.includes('&')) return v;
  return v.replace(/&(#x[0-9A-Fa-f]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref] ?? whole;
  });
}

/**
 * The text of an XML file's bytes, decoded by the encoding its declaration names (UTF-8 when it names
 * none, or one TextDecoder does not know); a byte order mark is left out. Files from elsewhere are not
 * always UTF-8: the Portuguese tax authority's own samples are Windows-1252.
 */
export function decodeXmlBytes(bytes: Buffer): string {
  const head = bytes.subarray(0, 200).toString('latin1');
  const label = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1] ?? 'utf-8';
  let text: string;
  try {
    const decoder = new TextDecoder(label);
    text = decoder.decode(bytes);
    if (decoder.encoding === 'windows-1252') text = text.replace(/[\u0080-\u009F]/g, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80] ?? c);
  } catch {
    text = bytes.toString('utf8');
  }
  return text.replace(/^\uFEFF/, '');
}

/**
 * Windows-1252's characters for the bytes 0x80 to 0x9F (the five it leaves undefined stay the C1 control
 * of their number, as the WHATWG decoder has them). Node 20's TextDecoder decodes these bytes as Latin-1
 * (U+0080 to U+009F), which would turn a euro sign into a control character; the mapping is the
 * decoder's where it is right already, since no byte decodes to a C1 control otherwise.
 */
const WINDOWS_1252_C1 = '\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F'
  + '\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178';
