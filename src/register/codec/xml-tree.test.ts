import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { child, children, parseXml, textOf } from './xml-tree.js';

describe('parseXml', () => {
  test('elements without their namespace prefix, text and CDATA, under a nameless document element', () => {
    const doc = parseXml('<?xml version="1.0"?><n:A xmlns:n="urn:x"><n:B> one </n:B><n:B>two &amp; <![CDATA[<three>]]></n:B><C/></n:A>');
    assert.equal(doc.name, '');
    const a = child(doc, 'A');
    assert.equal(a?.name, 'A');
    assert.deepEqual(children(a, 'B').map((b) => b.text), [' one ', 'two & <three>']);
    assert.equal(textOf(a, 'B'), 'one');
    assert.equal(textOf(a, 'C'), '');
    assert.equal(textOf(a, 'D'), undefined);
    assert.deepEqual(children(undefined, 'B'), []);
  });

  test('refuses DOCTYPE and entity declarations, and what is not well-formed', () => {
    assert.throws(() => parseXml('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>'), /DOCTYPE/);
    assert.throws(() => parseXml('<a><b></a>'));
  });
});
