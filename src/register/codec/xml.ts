/**
 * XML codec. Parsing uses saxes, a strict (well-formedness checking) streaming parser: one pass,
 * errors with line and column. Serialization is written here, since the escaping rules are ours
 * (line breaks and tabs in attribute values as character references).
 */
import { SaxesParser } from 'saxes';
import { FiscalError } from '../../shared/errors.js';
import { type Obj, type Value, type Doc, LINE_ARRAYS, REPEATED, TEXT_ELEMENTS, isObj } from './model.js';
import { checkDepth, checkName, checkText } from './guard.js';

interface Element {
  name: string;
  attrs: Record<string, string>;
  children: Element[];
  text: string;
}

const FORBIDDEN = /<!DOCTYPE|<!ENTITY/i;

function parseTree(text: string): Element {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const root: Element = { name: '', attrs: {}, children: [], text: '' };
  const stack: Element[] = [root];
  parser.on('opentag', (tag) => {
    const path = (): string => stack.map((e) => e.name).filter(Boolean).concat(tag.name).join('.');
    checkDepth(stack.length, 'xml', path);
    checkName(tag.name, 'xml', path);
    const attrs: Record<string, string> = {};
    for (const [k, v] of Object.entries(tag.attributes)) {
      checkName(k, 'xml', () => `${path()}@${k}`);
      checkText(v, 'xml', () => `${path()}@${k}`);
      attrs[k] = v;
    }
    const el: Element = { name: tag.name, attrs, children: [], text: '' };
    (stack[stack.length - 1] as Element).children.push(el);
    stack.push(el);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('text', (t) => {
    (stack[stack.length - 1] as Element).text += t;
  });
  parser.on('cdata', (t) => {
    (stack[stack.length - 1] as Element).text += t;
  });
  parser.on('error', (e) => {
    throw e;
  });
  parser.write(text).close();
  return root;
}

function elementToValue(el: Element): Value {
  const text = el.text.trim();
  if (el.children.length === 0 && Object.keys(el.attrs).length === 0) return text;
  const out: Obj = { ...el.attrs };
  if (text !== '') out.value = text;
  for (const child of el.children) {
    const cname = child.name;
    if (LINE_ARRAYS.has(cname)) {
      out[cname] = child.children.map((line): Obj => {
        const v = elementToValue(line);
        if (isObj(v)) return { _: line.name, ...v };
        return v === '' ? { _: line.name } : { _: line.name, value: v };
      });
      continue;
    }
    const v = elementToValue(child);
    const existing = out[cname];
    if (REPEATED.has(cname)) {
      out[cname] = Array.isArray(existing) ? [...existing, v] : [v];
    } else if (existing !== undefined) {
      out[cname] = Array.isArray(existing) ? [...existing, v] : [existing, v];
    } else {
      out[cname] = v;
    }
  }
  return out;
}

/** Parses an XML body `<Root ...>...</Root>`; refuses DOCTYPE and entity declarations. */
export function decodeXml(text: string): Doc {
  if (FORBIDDEN.test(text)) throw new FiscalError('#XML_FORBIDDEN');
  let tree: Element;
  try {
    tree = parseTree(text);
  } catch (e) {
    if (e instanceof FiscalError) throw e;
    throw new FiscalError('#MALFORMED', { format: 'XML', detail: e instanceof Error ? e.message : String(e) });
  }
  const rootEl = tree.children[0];
  if (!rootEl || tree.children.length !== 1) {
    throw new FiscalError('#MALFORMED', { format: 'XML', detail: `expected one root element, got ${tree.children.length}` });
  }
  const v = elementToValue(rootEl);
  return { root: rootEl.name, body: isObj(v) ? v : {}, format: 'xml' };
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\n': '&#10;', '\r': '&#13;', '\t': '&#9;' };

export function escapeAttr(v: string): string {
  return v.replace(/[&<>"'\n\r\t]/g, (c) => ESCAPES[c] ?? c);
}

/** Text content: `\r` too, which a parser would otherwise read back as `\n`. */
export function escapeText(v: string): string {
  return v.replace(/[&<>\r]/g, (c) => ESCAPES[c] ?? c);
}

function writeValue(key: string, v: Value, out: string[]): void {
  if (typeof v === 'string') {
    out.push(v === '' ? `<${key}/>` : `<${key}>${escapeText(v)}</${key}>`);
    return;
  }
  if (Array.isArray(v)) {
    const objs = v.filter(isObj);
    if (LINE_ARRAYS.has(key) || (objs.length > 0 && objs.every((o) => typeof o._ === 'string'))) {
      out.push(`<${key}>`);
      for (const item of objs) {
        const { _, ...rest } = item;
        writeObject(typeof _ === 'string' ? _ : 'Item', rest, out);
      }
      out.push(`</${key}>`);
      return;
    }
    for (const item of v) writeValue(key, item, out);
    return;
  }
  writeObject(key, v, out);
}

function writeObject(name: string, o: Obj, out: string[]): void {
  let open = `<${name}`;
  let text = '';
  const children: Array<[string, Value]> = [];
  for (const [k, v] of Object.entries(o)) {
    if (typeof v === 'string' && !TEXT_ELEMENTS.has(k)) {
      if (k === 'value') text = escapeText(v);
      else open += ` ${k}="${escapeAttr(v)}"`;
    } else {
      children.push([k, v]);
    }
  }
  if (text === '' && children.length === 0) {
    out.push(`${open}/>`);
    return;
  }
  out.push(`${open}>${text}`);
  for (const [k, v] of children) writeValue(k, v, out);
  out.push(`</${name}>`);
}

/** One element without the XML declaration, for streaming a list. */
export function encodeXmlElement(name: string, body: Obj): string {
  const out: string[] = [];
  writeObject(name, body, out);
  return out.join('');
}

export function encodeXml(root: string, body: Obj): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  writeObject(root, body, out);
  return out.join('');
}
