import type { Format } from './model.js';

/**
 * The answer's format, as the spec puts it: the body's format, unless Accept asks for XML
 * (text/xml, application/xml or the bare word); JSON by default. An Accept naming JSON does not
 * turn an XML request into a JSON answer: many HTTP libraries send it on every request.
 */
export function responseFormat(accept: string | undefined, bodyFormat: Format | undefined): Format {
  if ((accept ?? '').toLowerCase().includes('xml')) return 'xml';
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
