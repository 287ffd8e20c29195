import type { Format } from './model.js';

/** The answer's format: Accept naming XML (text/xml, application/xml or the bare word) wins, then JSON, then the body's format. */
export function responseFormat(accept: string | undefined, bodyFormat: Format | undefined): Format {
  const a = (accept ?? '').toLowerCase();
  if (a.includes('xml')) return 'xml';
  if (a.includes('json')) return 'json';
  return bodyFormat ?? 'json';
}

export function contentType(format: Format): string {
  return format === 'xml' ? 'text/xml; charset=utf-8' : 'application/json; charset=utf-8';
}

/** Guesses the body's format from its content type, then its first character. */
export function bodyFormat(contentTypeHeader: string | undefined, text: string): Format {
  const ct = (contentTypeHeader ?? '').toLowerCase();
  if (ct.includes('xml')) return 'xml';
  if (ct.includes('json')) return 'json';
  return text.trimStart().startsWith('<') ? 'xml' : 'json';
}
