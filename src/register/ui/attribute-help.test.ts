import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ATTRIBUTE_HELP, attributeHelp, attributeName } from './attribute-help.js';
import { UI_LANGS } from './i18n.js';

test('every attribute of the spec\'s table has help in en, de, fr, nl', () => {
  const spec = readFileSync('/work/shared/spec/efr-interface.md', 'utf8');
  const table = spec.slice(spec.indexOf('### Profile attributes'), spec.indexOf('### Environment-based profile configuration'));
  const names = [...table.matchAll(/^\| ([A-Za-z][\w, ]*?)(?: \([A-Z, ]+\))? \|/gm)].flatMap((m) => (m[1] as string).split(', ')).filter((n) => n !== 'Attribute');
  assert.ok(names.length > 50, `found ${names.length} names`);
  for (const name of names) {
    const h = attributeHelp(name);
    assert.ok(h, `no help for ${name}`);
    for (const lang of UI_LANGS) assert.ok(h.help[lang].length > 3, `${name} ${lang}`);
  }
  // written translations, not English copied
  for (const a of ATTRIBUTE_HELP) assert.equal(new Set(UI_LANGS.map((l) => a.help[l])).size, 4, `${a.name} is not translated`);
});

test('names are case-insensitive and keep the spec\'s spelling', () => {
  assert.equal(attributeName('httpserver_port'), 'HttpServer_Port');
  assert.equal(attributeName('my_flag'), 'my_flag');
  assert.equal(attributeHelp('MY_FLAG'), undefined);
});

test('the attributes the service reads have help (not "unknown")', () => {
  for (const name of ['Portal_Url', 'TL', 'TT']) assert.ok(attributeHelp(name.toLowerCase()), name);
});
