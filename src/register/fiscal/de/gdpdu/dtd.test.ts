/** The DTD shipped in the exports is the published GDPdU DTD, byte for byte. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { vectorPath } from '../../../../shared/testing.js';
import { GDPDU_DTD, GDPDU_DTD_NAME } from './dtd.js';

test('the shipped DTD is the published gdpdu-01-09-2004.dtd', () => {
  const published = readFileSync(vectorPath('de-gdpdu', GDPDU_DTD_NAME));
  assert.equal(Buffer.from(GDPDU_DTD, 'utf8').compare(published), 0, 'same bytes as test/vectors/de-gdpdu');
  // the parts an auditor's tool found missing in a narrower DTD
  for (const decl of ['<!ELEMENT Extension (Name, URL)>', '<!ELEMENT Alias (From, To)>', '<!ELEMENT AcceptNoTables (#PCDATA)>', '<!ELEMENT Media (Name, Command*, Table*, Command*, AcceptNoTables?)>']) {
    assert.ok(GDPDU_DTD.includes(decl), decl);
  }
});
