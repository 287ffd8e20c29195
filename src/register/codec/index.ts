import { FiscalError } from '../../shared/errors.js';
import type { Doc, Format, Obj } from './model.js';
import { decodeJson, encodeJson } from './json.js';
import { decodeXml, encodeXml } from './xml.js';
export { encodeJsonValue } from './json.js';
export { encodeXmlElement } from './xml.js';
import { bodyFormat } from './negotiate.js';

export * from './model.js';
export { responseFormat, contentType, bodyFormat } from './negotiate.js';

/** Decodes a request body in either format; `expected` names the roots for the error message. */
export function decodeBody(text: string, contentTypeHeader: string | undefined, expected: string): Doc {
  if (text.trim() === '') throw new FiscalError('#EMPTY_BODY', { expected });
  const format = bodyFormat(contentTypeHeader, text);
  return format === 'xml' ? decodeXml(text) : decodeJson(text);
}

export function encode(format: Format, root: string, body: Obj): string {
  return format === 'xml' ? encodeXml(root, body) : encodeJson(root, body);
}
