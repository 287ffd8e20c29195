/**
 * The receipts of the golden tests: journal records as /find gave them back from a real register (with
 * the Cfg in force and the language), checked in under test/golden/receipts/<name>.json, each drawn in
 * one language and at each printer width. A case may draw a record in another language than its own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Lang } from '../src/shared/errors.js';
import { type Obj, type Value, isObj } from '../src/register/codec/index.js';
import { type ReceiptRecord, type ReceiptView, receiptView } from '../src/register/render/index.js';
import { ROOT } from './helpers.js';

export const GOLDEN_DIR = join(ROOT, 'test', 'golden', 'receipts');

export interface GoldenCase {
  /** the golden files are <name>-<width>.txt */
  name: string;
  /** the record file, <fixture>.json */
  fixture: string;
  lang?: Lang;
}

export const CASES: readonly GoldenCase[] = [
  { name: 'at', fixture: 'at' },
  { name: 'de', fixture: 'de' },
  { name: 'fr', fixture: 'fr' },
  { name: 'mixed', fixture: 'mixed' },
  { name: 'mixed-nl', fixture: 'mixed', lang: 'nl' },
  { name: 'z-de', fixture: 'z-de' },
  { name: 'z-en', fixture: 'z-de', lang: 'en' },
  { name: 'z-fr', fixture: 'z-fr' },
  { name: 'x-no', fixture: 'x-no' },
];

interface Fixture {
  lang: Lang;
  cfg: Obj;
  record: Obj;
}

function fixture(name: string): Fixture {
  const parsed = JSON.parse(readFileSync(join(GOLDEN_DIR, `${name}.json`), 'utf8')) as Value;
  if (!isObj(parsed) || !isObj(parsed.record) || !isObj(parsed.cfg) || typeof parsed.lang !== 'string') throw new Error(`${name}.json: {lang, cfg, record} expected`);
  return { lang: parsed.lang as Lang, cfg: parsed.cfg, record: parsed.record };
}

/** The view of a case, as GET /render builds it from the journal (the record without its `_`). */
export function caseView(c: GoldenCase): ReceiptView {
  const f = fixture(c.fixture);
  const { _: type, ...data } = f.record;
  if (type !== 'Tra') throw new Error(`${c.fixture}.json: a Tra record expected`);
  return receiptView({ record: { type: 'Tra', data }, cfg: f.cfg, lang: c.lang ?? f.lang });
}

/** The record of a case as the HTML renderer gets it with the view. */
export function caseRecord(c: GoldenCase): ReceiptRecord {
  const { _: _type, ...data } = fixture(c.fixture).record;
  return { type: 'Tra', data };
}
