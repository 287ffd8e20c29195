/**
 * An XML file as a small tree of elements (names without their namespace prefix, text content), for the
 * verifiers of exported files and the tests that read what the exports wrote. Parsed by saxes, which
 * refuses what is not well-formed; DOCTYPE and entity declarations are refused before parsing.
 */
import { SaxesParser } from 'saxes';

export interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

/** The document as a nameless element whose children are its root element. */
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
