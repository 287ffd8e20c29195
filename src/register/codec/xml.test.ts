import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Obj } from './model.js';
import { decodeXml, encodeXml } from './xml.js';
import { fiscalError } from '../../shared/testing.js';


function esrOf(body: Obj): Obj {
  const esr = body.ESR;
  assert.ok(esr && typeof esr === 'object' && !Array.isArray(esr), 'ESR must be an object');
  return esr;
}

describe('decodeXml', () => {
  test('attributes, children and line arrays', () => {
    const doc = decodeXml('<?xml version="1.0" encoding="UTF-8"?><Tra><ESR T="1.50" TT="1"><Head Txt="Hi"/><PosA><Pos PN="1" Amt="1.50"/></PosA></ESR></Tra>');
    assert.equal(doc.root, 'Tra');
    assert.equal(doc.format, 'xml');
    assert.deepEqual(doc.body, { ESR: { T: '1.50', TT: '1', Head: { Txt: 'Hi' }, PosA: [{ _: 'Pos', PN: '1', Amt: '1.50' }] } });
  });

  test('pretty-printed XML decodes the same as compact XML', () => {
    const compact = decodeXml('<Tra><ESR T="1.50"><PosA><Pos PN="1"/><Mod PN="1"/></PosA></ESR></Tra>');
    const pretty = decodeXml('<?xml version="1.0"?>\n<!-- a comment -->\n<Tra>\n  <ESR T="1.50">\n    <PosA>\n      <Pos PN="1"/>\n      <Mod PN="1"/>\n    </PosA>\n  </ESR>\n</Tra>\n');
    assert.deepEqual(pretty.body, compact.body);
  });

  test('1.50 stays 1.50 and an EAN keeps its leading zeros', () => {
    const doc = decodeXml('<Tra><ESR T="1.50"><PosA><Pos IN="0012345678905" Amt="1.50" Qty="1.000"/></PosA></ESR></Tra>');
    assert.deepEqual(esrOf(doc.body), { T: '1.50', PosA: [{ _: 'Pos', IN: '0012345678905', Amt: '1.50', Qty: '1.000' }] });
    const out = encodeXml(doc.root, doc.body);
    assert.match(out, /T="1\.50"/);
    assert.match(out, /IN="0012345678905"/);
    assert.match(out, /Amt="1\.50"/);
  });

  test("a line's type is its element's name: a `_` in it, as an attribute or an element, is refused", () => {
    for (const line of ['<Pos _="Mod" Amt="1.00"/>', '<Pos><_>Pay</_><Amt>1.00</Amt></Pos>']) {
      const e = fiscalError(() => decodeXml(`<Tra><ESR TT="1"><PosA>${line}</PosA></ESR></Tra>`));
      assert.equal(e.code, '#MALFORMED', line);
      assert.match(e.message, /ESR\.PosA\.Pos: "_" is no field of a line/, line);
    }
  });

  test('line arrays keep the order of Pos, Mod and Lin', () => {
    const doc = decodeXml('<Tra><ESR><PosA><Lin Dsc="a"/><Pos PN="1"/><Mod PN="1"/><Lin Dsc="b"/><Pos PN="2"/><Mod/></PosA></ESR></Tra>');
    const posA = esrOf(doc.body).PosA as Obj[];
    assert.deepEqual(posA.map((l) => l._), ['Lin', 'Pos', 'Mod', 'Lin', 'Pos', 'Mod']);
    assert.deepEqual(posA[5], { _: 'Mod' });
    const again = decodeXml(encodeXml(doc.root, doc.body));
    assert.deepEqual(again.body, doc.body);
  });

  test('a control character or non-character in an attribute is refused, raw or as a reference', () => {
    for (const body of ['<Tra><ESR TN="7&#1;"/></Tra>', '<Tra><ESR TN="7"><PosA><Pos Dsc="a\uFFFF"/></PosA></ESR></Tra>', '<Tra><ESR TN="&amp;"><PosA><Pos Dsc="a\uFFFE"/></PosA></ESR></Tra>']) {
      const e = fiscalError(() => decodeXml(body));
      assert.equal(e.code, '#MALFORMED', body);
      assert.equal(e.status, 400);
    }
  });

  test('predefined entities and character references decode, in attributes and text', () => {
    const doc = decodeXml('<Tra><ESR Dsc="a &amp; b &lt;c&gt; &quot;q&quot; &apos;s&apos; &#252; &#x20AC;"><Note>x &amp; y &#252;ber &#x20AC;5 &lt;tag&gt;</Note></ESR></Tra>');
    const esr = esrOf(doc.body);
    assert.equal(esr.Dsc, 'a & b <c> "q" \'s\' ü €');
    assert.equal(esr.Note, 'x & y über €5 <tag>');
  });

  test('entities are decoded once only', () => {
    const doc = decodeXml('<Tra><ESR Dsc="&amp;lt;"/></Tra>');
    assert.equal(esrOf(doc.body).Dsc, '&lt;');
    assert.equal(esrOf(decodeXml('<Tra><ESR Dsc="&amp;amp;"/></Tra>').body).Dsc, '&amp;');
    assert.equal(esrOf(decodeXml('<Tra><ESR Dsc="&#x1F600;"/></Tra>').body).Dsc, '😀');
    assert.equal(esrOf(decodeXml('<Tra><ESR Dsc="plain"/></Tra>').body).Dsc, 'plain');
  });

  test('CDATA content is literal text and is not entity-decoded', () => {
    const doc = decodeXml('<Tra><ESR><Note><![CDATA[a &amp; <b>]]></Note></ESR></Tra>');
    assert.equal(esrOf(doc.body).Note, 'a &amp; <b>');
  });

  test('DOCTYPE and ENTITY declarations are refused with #XML_FORBIDDEN', () => {
    const bodies = [
      '<?xml version="1.0"?><!DOCTYPE Tra [<!ENTITY x "y">]><Tra><ESR Dsc="&x;"/></Tra>',
      '<!DOCTYPE Tra SYSTEM "file:///etc/passwd"><Tra/>',
      '<!doctype Tra><Tra/>',
      '<Tra><!ENTITY a "b"></Tra>',
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><Tra>&lol2;</Tra>',
    ];
    for (const b of bodies) {
      const e = fiscalError(() => decodeXml(b));
      assert.equal(e.code, '#XML_FORBIDDEN', b);
      assert.equal(e.rc, 'BAD');
    }
  });

  test('malformed XML gives #MALFORMED', () => {
    for (const bad of ['<Tra><ESR></Tra>', '<Tra', 'just text', '<Tra/><Tra/>', '<Tra><ESR D="1" D="2"/></Tra>', '<Tra><ESR D=1/></Tra>']) {
      const e = fiscalError(() => decodeXml(bad));
      assert.equal(e.code, '#MALFORMED', bad);
      assert.match(e.message, /XML/);
    }
  });

  test('company attributes of 5+ letters and namespaced ones survive decode and encode', () => {
    const text = '<Tra xmlns:c="urn:company"><ESR Kundenkarte="0042" c:Kunde="7"><LoyaltyInfo Level="gold" Points="120"/><PosA><Pos Dsc="x" ArticleGroup="dairy" Amt="1.00"/></PosA></ESR></Tra>';
    const doc = decodeXml(text);
    assert.deepEqual(doc.body, {
      'xmlns:c': 'urn:company',
      ESR: { Kundenkarte: '0042', 'c:Kunde': '7', LoyaltyInfo: { Level: 'gold', Points: '120' }, PosA: [{ _: 'Pos', Dsc: 'x', ArticleGroup: 'dairy', Amt: '1.00' }] },
    });
    const again = decodeXml(encodeXml(doc.root, doc.body));
    assert.deepEqual(again.body, doc.body);
  });
});

describe('encodeXml', () => {
  test('writes a declaration, attributes and line elements', () => {
    const out = encodeXml('Tra', { ESR: { TT: '1', PosA: [{ _: 'Pos', PN: '1', Amt: '1.50' }, { _: 'Mod', Amt: '-0.10' }] } });
    assert.equal(out, '<?xml version="1.0" encoding="UTF-8"?>\n<Tra><ESR TT="1"><PosA><Pos PN="1" Amt="1.50"/><Mod Amt="-0.10"/></PosA></ESR></Tra>');
  });

  test('escapes special characters in attributes and text', () => {
    const body: Obj = { ESR: { Dsc: 'a<b & "c" >d', Q: "it's" }, Result: { RC: 'OK', UserMessage: 'x < y & z > w' } };
    const out = encodeXml('TraC', body);
    assert.ok(!out.includes('a<b'), out);
    assert.ok(!out.includes('& "'), out);
    assert.ok(!out.includes('x < y'), out);
    assert.match(out, /Dsc="a&lt;b &amp; &quot;c&quot; &gt;d"/);
    assert.match(out, /<UserMessage>x &lt; y &amp; z &gt; w<\/UserMessage>/);
    assert.deepEqual(decodeXml(out).body, body);
  });

  test('line breaks in attribute values are written as character references', () => {
    // XML 1.0 attribute-value normalization turns a literal line break or tab into a space for
    // every conforming parser: a multi-line Head Txt must be written as &#10; to survive.
    const body: Obj = { ESR: { Head: { Txt: 'line 1\nline 2' }, Dsc: 'a\tb' } };
    const out = encodeXml('Tra', body);
    const attrs = [...out.matchAll(/="([^"]*)"/g)].map((m) => m[1] ?? '');
    for (const a of attrs) assert.ok(!/[\n\t\r]/.test(a), `raw control character in attribute value ${JSON.stringify(a)}`);
    assert.deepEqual(decodeXml(out).body, body);
  });

  test('Result.Warning and Fis.Tag arrays round trip (REPEATED, TEXT_ELEMENTS)', () => {
    const body: Obj = {
      SQ: '1537030',
      Result: { RC: 'OK', Warning: ['first', 'second <2>'] },
      ESR: { D: '2024-08-01T10:50:30' },
      Fis: {
        TID: '3',
        Code: 'V0;001/1;Kassenbeleg-V1;Beleg^6.88_1.50_0.00_0.00_0.00^8.38:Bar;3;7',
        Tag: [
          { Name: 'FN', Value: '3', Label: 'TrNr:' },
          { Name: 'StartD', Value: '2024-08-01 10:50:30', Label: 'Beg.:' },
          { Name: 'KSNr', Value: 'x', Label: '' },
        ],
      },
    };
    const out = encodeXml('TraC', body);
    assert.match(out, /<Warning>first<\/Warning><Warning>second &lt;2&gt;<\/Warning>/);
    assert.match(out, /<Code>V0;001\/1;Kassenbeleg-V1;Beleg\^6\.88_1\.50/);
    assert.equal((out.match(/<Tag /g) ?? []).length, 3);
    assert.deepEqual(decodeXml(out).body, body);
  });

  test('a single Warning and a single Tag still decode as arrays', () => {
    const doc = decodeXml('<TraC SQ="1"><Result RC="OK"><Warning>only</Warning></Result><Fis><Tag Name="FN" Value="3" Label="TrNr:"/></Fis></TraC>');
    assert.deepEqual(doc.body, { SQ: '1', Result: { RC: 'OK', Warning: ['only'] }, Fis: { Tag: [{ Name: 'FN', Value: '3', Label: 'TrNr:' }] } });
  });

  test('the German receipt response of the compat notes decodes', () => {
    const text = '<TraC SQ="1537030"><Result RC="OK"/><ESR D="2024-08-01T10:50:30"/><Fis TID="3"><Code>V0;001/1;Kassenbeleg-V1;Beleg^6.88_1.50_0.00_0.00_0.00^8.38:Bar;3;7;2024-08-01T08:50:30.000Z;...</Code><Tag Label="TrNr:" Value="3" Name="FN"/><Tag Label="Beg.:" Value="2024-08-01 10:50:30" Name="StartD"/><Tag Label="SigZ:" Value="7" Name="SignCnt"/></Fis></TraC>';
    const doc = decodeXml(text);
    assert.equal(doc.root, 'TraC');
    const fis = doc.body.Fis as Obj;
    assert.equal(fis.TID, '3');
    assert.equal((fis.Tag as Obj[]).length, 3);
    assert.deepEqual((fis.Tag as Obj[])[2], { Label: 'SigZ:', Value: '7', Name: 'SignCnt' });
    assert.equal(fis.Code, 'V0;001/1;Kassenbeleg-V1;Beleg^6.88_1.50_0.00_0.00_0.00^8.38:Bar;3;7;2024-08-01T08:50:30.000Z;...');
  });
});
