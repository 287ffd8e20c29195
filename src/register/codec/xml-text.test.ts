import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SaxesParser } from 'saxes';
import { decodeXmlBytes, escapeAttr, escapeText, unescapeText } from './xml-text.js';

/** What a parser reads back: the text content and the value of attribute `a` of `<r a="...">...</r>`. */
function readBack(xml: string): { text: string; attr: string } {
  const parser = new SaxesParser({ xmlns: false });
  let text = '';
  let attr = '';
  parser.on('opentag', (tag) => {
    attr = String(tag.attributes.a ?? '');
  });
  parser.on('text', (t) => {
    text += t;
  });
  parser.on('error', (e) => {
    throw e;
  });
  parser.write(xml).close();
  return { text, attr };
}

const write = (v: string, w = v): string => `<r a="${escapeAttr(v)}">${escapeText(w)}</r>`;

describe('escapeText and escapeAttr', () => {
  for (const c of ['&', '<', '>', '"', "'", '\n', '\r', '\t']) {
    test(`${JSON.stringify(c)} reads back as itself in text and in an attribute`, () => {
      const v = `a${c}b${c}${c}c`;
      assert.deepEqual(readBack(write(v)), { text: v, attr: v });
    });
  }

  test('unescapeText reads escaped text back as a parser does: entities and character references', () => {
    for (const v of ['a & b <c> "d" \'e\'', 'line\r\nnext', 'plain', '€ 𝄞', '&amp;lt; stays one level']) {
      assert.equal(unescapeText(escapeText(v)), v, JSON.stringify(v));
    }
    assert.equal(unescapeText('&#65;&#x42;&#x1D11E;&quot;&apos;'), 'AB𝄞"\'');
    assert.equal(unescapeText('&unknown; &#xZZ; &'), '&unknown; &#xZZ; &');
  });

  test('the escapes are the entities and character references of the rule set', () => {
    assert.equal(escapeText(`a&b<c>d"e'f\ng\rh\ti`), `a&amp;b&lt;c&gt;d"e'f\ng&#13;h\ti`);
    assert.equal(escapeAttr(`a&b<c>d"e'f\ng\rh\ti`), 'a&amp;b&lt;c&gt;d&quot;e&apos;f&#10;g&#13;h&#9;i');
  });

  test('characters XML 1.0 does not allow are dropped, and the document stays well-formed', () => {
    const v = 'a\u0000b\u0007c\u000Bd\u001Fe\uFFFEf\uFFFFg\uD800h';
    assert.equal(escapeText(v), 'abcdefgh');
    assert.equal(escapeAttr(v), 'abcdefgh');
    assert.deepEqual(readBack(write(v)), { text: 'abcdefgh', attr: 'abcdefgh' });
    // written as they are, the parser refuses them
    assert.throws(() => readBack('<r>a\u0007b</r>'));
  });

  test('characters outside the basic plane and text without specials are kept as they are', () => {
    const v = 'Grüße 😀 €5';
    assert.equal(escapeText(v), v);
    assert.equal(escapeAttr(v), v);
    assert.deepEqual(readBack(write(v)), { text: v, attr: v });
  });
});

describe('decodeXmlBytes', () => {
  test('decodes by the encoding the declaration names, Windows-1252 with its euro sign', () => {
    const declaration = '<?xml version="1.0" encoding="Windows-1252"?>';
    // "João €" in Windows-1252: ã is 0xE3, € is 0x80
    const bytes = Buffer.concat([Buffer.from(`${declaration}<r>Jo`, 'latin1'), Buffer.from([0xe3]), Buffer.from('o ', 'latin1'), Buffer.from([0x80, 0x99]), Buffer.from('</r>', 'latin1')]);
    assert.equal(decodeXmlBytes(bytes), `${declaration}<r>Jo\u00e3o \u20ac\u2122</r>`);
  });

  test('UTF-8 without a declaration, with its byte order mark left out', () => {
    assert.equal(decodeXmlBytes(Buffer.from('\uFEFF<r>Grüße</r>', 'utf8')), '<r>Grüße</r>');
  });

  test('an encoding TextDecoder does not know is read as UTF-8', () => {
    const xml = '<?xml version="1.0" encoding="x-unknown-1"?><r>Grüße</r>';
    assert.equal(decodeXmlBytes(Buffer.from(xml, 'utf8')), xml);
  });
});
