import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ATTRIBUTE_HELP, attributeHelp, attributeName } from './attribute-help.js';
import { UI_LANGS } from './i18n.js';

/** The names of the table under "## Profile attributes" in docs/interface.md: one name per row, first column. */
function documentedAttributes(): string[] {
  const doc = readFileSync(fileURLToPath(new URL('../../../docs/interface.md', import.meta.url)), 'utf8');
  const start = doc.indexOf('\n## Profile attributes\n');
  assert.ok(start >= 0, 'docs/interface.md has no "## Profile attributes" section');
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const names = [...section.matchAll(/^\| ([^|]+?) \|/gm)].map((m) => (m[1] as string).trim()).filter((n) => n !== 'Name');
  for (const name of names) assert.match(name, /^[A-Za-z]\w*$/, `one attribute name per row: "${name}"`);
  return names;
}

test('every attribute of the interface reference has help in en, de, fr, nl', () => {
  const names = documentedAttributes();
  assert.ok(names.length > 50, `found ${names.length} names`);
  assert.equal(new Set(names.map((n) => n.toLowerCase())).size, names.length, 'each attribute once');
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
