/**
 * HTML of the browser pages, written as tagged templates: every interpolated value is escaped unless it is
 * already `Html` (made by `html` itself or `raw`); arrays are joined. No template engine, nothing from a CDN.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content and attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** Markup that is trusted as it is (our own constants only). */
export function raw(text: string): Html {
  return new Html(text);
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function partText(v: Part): string {
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return (v as readonly Part[]).map(partText).join('');
  if (v === null || v === undefined || v === false) return '';
  return esc(v);
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += partText(v) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}
