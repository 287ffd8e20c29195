/**
 * Runs a receipt template (pug or ejs) with the receipt's data. PLACEHOLDER of issue 7: the layouts
 * helper replaces this with the sandboxed runner (no file system, no process, no include).
 */
import pug from 'pug';
import ejs from 'ejs';

export type TemplateKind = 'pug' | 'ejs';

/** Renders `source` (named `name` in error messages) with JSON-like `locals`; throws FiscalError #PUG_SYNTAX_ERROR on a syntax error. */
export function renderTemplate(kind: TemplateKind, source: string, name: string, locals: Record<string, unknown>): string {
  return kind === 'pug' ? pug.render(source, { ...locals, filename: name }) : ejs.render(source, locals);
}
