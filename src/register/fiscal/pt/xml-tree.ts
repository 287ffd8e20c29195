/**
 * A SAF-T file as a tree of elements (names without namespace prefix, text content), for the verifier.
 * The bytes are decoded by the encoding the XML declaration names (the AT's own samples are
 * Windows-1252), then parsed by saxes, which refuses what is not well-formed.
 */
import { SaxesParser } from 'saxes';

export interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

export function decodeXmlBytes(bytes: Buffer): string {
  const head = bytes.subarray(0, 200).toString('latin1');
  const label = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1] ?? 'utf-8';
  let text: string;
  try {
    text = new TextDecoder(label).decode(bytes);
  } catch {
    text = bytes.toString('utf8');
  }
  return text.replace(/^\uFEFF/, '');
}

export function parseXml(text: string): XmlElement {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new Error('XML with a DOCTYPE or entity declaration is refused');
  const parser = new SaxesParser({ xmlns: false, position: true });
  const root: XmlElement = { name: '', children: [], text: '' };
  const stack: XmlElement[] = [root];
  parser.on('opentag', (tag) => {
    const el: XmlElement = { name: tag.name.replace(/^.*:/, ''), children: [], text: '' };
    (stack[stack.length - 1] as XmlElement).children.push(el);
    stack.push(el);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('text', (t) => {
    (stack[stack.length - 1] as XmlElement).text += t;
  });
  parser.on('cdata', (t) => {
    (stack[stack.length - 1] as XmlElement).text += t;
  });
  parser.on('error', (e) => {
    throw e;
  });
  parser.write(text).close();
  return root;
}

export function child(el: XmlElement | undefined, name: string): XmlElement | undefined {
  return el?.children.find((c) => c.name === name);
}

export function children(el: XmlElement | undefined, name: string): XmlElement[] {
  return el ? el.children.filter((c) => c.name === name) : [];
}

/** The trimmed text of a child element, undefined when absent. */
export function textOf(el: XmlElement | undefined, name: string): string | undefined {
  const c = child(el, name);
  return c ? c.text.trim() : undefined;
}
