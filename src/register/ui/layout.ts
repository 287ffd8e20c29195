/**
 * The frame of every browser page: title, navigation between the pages, language choice, a notice (saved / not
 * saved), the page's content. The style sheet is served by the service itself (/ui/style.css).
 */
import { type Html, html } from './html.js';
import { type Translate, type UiLang, UI_LANGS } from './i18n.js';

export type UiSection = 'profile' | 'cfg' | 'status' | 'journal';

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

export interface PageOptions {
  lang: UiLang;
  t: Translate;
  /** the page's own title (after the service's name) */
  title: string;
  active: UiSection;
  body: Html;
  notice?: Notice;
  /** the path of this page, for the language links (query kept by the caller when it matters) */
  path: string;
}

const NAV: ReadonlyArray<[UiSection, string, string]> = [
  ['profile', '/', 'nav.profile'],
  ['cfg', '/ui/cfg', 'nav.cfg'],
  ['status', '/control', 'nav.status'],
  ['journal', '/ui/journal', 'nav.journal'],
];

const LANG_NAMES: Readonly<Record<UiLang, string>> = { en: 'English', de: 'Deutsch', fr: 'Français', nl: 'Nederlands' };

export function uiPage(o: PageOptions): string {
  const sep = o.path.includes('?') ? '&' : '?';
  return `<!DOCTYPE html>${html`<html lang="${o.lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title} · ${o.t('app.title')}</title>
<link rel="stylesheet" href="/ui/style.css">
<link rel="icon" href="data:,">
</head><body>
<header><div class="brand">${o.t('app.title')}</div>
<nav>${NAV.map(([id, href, key]) => html`<a href="${href}"${id === o.active ? html` class="active" aria-current="page"` : ''}>${o.t(key)}</a>`)}</nav>
<div class="langs" aria-label="${o.t('nav.language')}">${UI_LANGS.map((l) => (l === o.lang ? html`<strong>${l.toUpperCase()}</strong>` : html`<a href="${o.path}${sep}lang=${l}" title="${LANG_NAMES[l]}" lang="${l}">${l.toUpperCase()}</a>`))}</div>
</header>
<main><h1>${o.title}</h1>
${o.notice ? html`<p class="notice ${o.notice.kind}" role="${o.notice.kind === 'error' ? 'alert' : 'status'}">${o.notice.text}</p>` : ''}
${o.body}
</main>
<footer>${o.t('nav.more')}: <a href="/peri/pugedit">${o.t('nav.layouts')}</a> · <a href="/service/config">${o.t('nav.service')}</a> · <a href="/backup/restore">${o.t('nav.restore')}</a></footer>
</body></html>`}`;
}
