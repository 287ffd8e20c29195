/**
 * The receipt as HTML (GET and POST /render): the register's custom layout if it has one, else the
 * default template templates/fiscal.pug, run in the template sandbox with the receipt's locals.
 */
import { readFileSync } from 'node:fs';
import type { Obj } from '../codec/index.js';
import { obj } from '../codec/index.js';
import type { Layout } from './layout-store.js';
import { htmlBlocks } from './receipt-html-lines.js';
import { DEFAULT_WIDTH } from './receipt-lines.js';
import type { ReceiptRecord, ReceiptView } from './receipt-view.js';
import { renderTemplate } from './template-sandbox.js';

export const DEFAULT_TEMPLATE_NAME = 'fiscal';

/**
 * The template next to this module; from the compiled build (dist/), the one in src/, which the
 * build does not copy.
 */
const TEMPLATE_PLACES = [
  new URL('./templates/fiscal.pug', import.meta.url),
  new URL('../../../src/register/render/templates/fiscal.pug', import.meta.url),
];

let defaultSource: string | undefined;

export function defaultTemplate(): string {
  if (defaultSource === undefined) {
    let last: unknown;
    for (const place of TEMPLATE_PLACES) {
      try {
        defaultSource = readFileSync(place, 'utf8');
        break;
      } catch (e) {
        last = e;
      }
    }
    if (defaultSource === undefined) throw last instanceof Error ? last : new Error('templates/fiscal.pug not found');
  }
  return defaultSource;
}

/**
 * What a template gets: the view model's fields at the top level and as `receipt`, the receipt laid out
 * in lines as the printer gets it (`blocks`, `width`: the default template prints these), and the
 * record's own ESR and Fis and the Cfg in force (what the layout editor previews with), for layouts that
 * want a field the view does not show.
 */
export function receiptLocals(view: ReceiptView, record: ReceiptRecord, cfg: Obj, width: number = DEFAULT_WIDTH): Record<string, unknown> {
  return { ...view, receipt: view, width, blocks: htmlBlocks(view, width), ESR: obj(record.data, 'ESR') ?? {}, Fis: obj(record.data, 'Fis') ?? {}, Cfg: cfg };
}

/** Runs in the template sandbox's worker: settles when the worker answers, the service serves others meanwhile. */
export function receiptHtml(view: ReceiptView, record: ReceiptRecord, cfg: Obj, layout: Layout | undefined, width: number = DEFAULT_WIDTH): Promise<string> {
  const locals = receiptLocals(view, record, cfg, width);
  if (layout) return renderTemplate(layout.kind, layout.source, layout.name, locals);
  return renderTemplate('pug', defaultTemplate(), DEFAULT_TEMPLATE_NAME, locals);
}
