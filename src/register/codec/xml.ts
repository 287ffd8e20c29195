import { XMLParser, XMLBuilder, XMLValidator } from 'fast-xml-parser';
import { FiscalError } from '../../shared/errors.js';
import { type Obj, type Value, type Doc, LINE_ARRAYS, REPEATED, TEXT_ELEMENTS, isObj } from './model.js';

/** fast-xml-parser's ordered node: one element name key, its children, and attributes under ':@'. */
type Node = { [name: string]: Node[] | string | Record<string, string> | undefined; ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  // entities are decoded below (only the five XML ones and character references): faster, and
  // nothing but what XML itself defines
  processEntities: false,
  trimValues: true,
  cdataPropName: '#cdata',
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: false,
});

// Escaping is done here (escapeAttr/escapeText), so that line breaks and tabs in attribute
// values survive any XML reader as character references.
const builder = new XMLBuilder({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  suppressEmptyNode: true,
  processEntities: false,
});

const ATTR_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\n': '&#10;', '\r': '&#13;', '\t': '&#9;' };

export function escapeAttr(v: string): string {
  return v.replace(/[&<>"'\n\r\t]/g, (c) => ATTR_ESCAPES[c] ?? c);
}

export function escapeText(v: string): string {
  return v.replace(/[&<>]/g, (c) => ATTR_ESCAPES[c] ?? c);
}

const FORBIDDEN = /<!DOCTYPE|<!ENTITY/i;

const ENTITY = /&(?:(lt|gt|amp|quot|apos)|#(\d{1,7})|#x([0-9a-fA-F]{1,6}));/g;
const NAMED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Decodes the predefined XML entities and character references. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (name) return NAMED[name] ?? whole;
    const code = dec !== undefined ? Number(dec) : parseInt(hex ?? '', 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function nameOf(node: Node): string | undefined {
  return Object.keys(node).find((k) => k !== ':@');
}

function childrenOf(node: Node, name: string): Node[] {
  const c = node[name];
  return Array.isArray(c) ? c : [];
}

/** Text content: character data with entities decoded, CDATA sections as they are. */
function textOf(children: Node[]): string | undefined {
  const parts: string[] = [];
  for (const c of children) {
    if ('#text' in c) parts.push(decodeEntities(String(c['#text'])));
    else if ('#cdata' in c) parts.push(childrenOf(c, '#cdata').map((t) => String(t['#text'] ?? '')).join(''));
  }
  return parts.length ? parts.join('') : undefined;
}

function elementToValue(node: Node, name: string): Value {
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries(node[':@'] ?? {})) attrs[k] = decodeEntities(v);
  const children = childrenOf(node, name).filter((c) => nameOf(c) !== '#text' && nameOf(c) !== '#cdata');
  const text = textOf(childrenOf(node, name));
  if (children.length === 0 && Object.keys(attrs).length === 0) return text ?? '';
  const out: Obj = { ...attrs };
  if (text !== undefined) out.value = text;
  for (const child of children) {
    const cname = nameOf(child);
    if (!cname) continue;
    if (LINE_ARRAYS.has(cname)) {
      const items: Value[] = [];
      for (const line of childrenOf(child, cname)) {
        const lname = nameOf(line);
        if (!lname || lname === '#text' || lname === '#cdata') continue;
        const v = elementToValue(line, lname);
        items.push(isObj(v) ? { _: lname, ...v } : v === '' ? { _: lname } : { _: lname, value: v });
      }
      out[cname] = items;
      continue;
    }
    const v = elementToValue(child, cname);
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
  let nodes: Node[];
  try {
    const valid = validateXml(text);
    if (valid !== true) throw new Error(valid);
    nodes = parser.parse(text) as Node[];
  } catch (e) {
    throw new FiscalError('#MALFORMED', { format: 'XML', detail: e instanceof Error ? e.message : String(e) });
  }
  const elements = nodes.filter((n) => {
    const k = nameOf(n);
    return k !== undefined && k !== '#text' && !k.startsWith('?');
  });
  if (elements.length !== 1) {
    throw new FiscalError('#MALFORMED', { format: 'XML', detail: `expected one root element, got ${elements.length}` });
  }
  const rootNode = elements[0] as Node;
  const root = nameOf(rootNode) as string;
  const v = elementToValue(rootNode, root);
  return { root, body: isObj(v) ? v : {}, format: 'xml' };
}

function validateXml(text: string): true | string {
  const r = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (r === true) return true;
  return `${r.err.msg} (line ${r.err.line}, column ${r.err.col})`;
}

function valueToNodes(key: string, v: Value): Node[] {
  if (typeof v === 'string') {
    return [{ [key]: v === '' ? [] : [{ '#text': escapeText(v) } as unknown as Node] }];
  }
  if (Array.isArray(v)) {
    const objs = v.filter(isObj);
    if (LINE_ARRAYS.has(key) || (objs.length > 0 && objs.every((o) => typeof o._ === 'string'))) {
      const kids: Node[] = [];
      for (const item of objs) {
        const { _, ...rest } = item;
        kids.push(...objectToNodes(typeof _ === 'string' ? _ : 'Item', rest));
      }
      return [{ [key]: kids }];
    }
    return v.flatMap((item) => valueToNodes(key, item));
  }
  return objectToNodes(key, v);
}

function objectToNodes(name: string, o: Obj): Node[] {
  const attrs: Record<string, string> = {};
  const kids: Node[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (typeof v === 'string' && !TEXT_ELEMENTS.has(k)) {
      if (k === 'value') kids.unshift({ '#text': escapeText(v) } as unknown as Node);
      else attrs[k] = escapeAttr(v);
    } else {
      kids.push(...valueToNodes(k, v));
    }
  }
  const node: Node = { [name]: kids };
  if (Object.keys(attrs).length) node[':@'] = attrs;
  return [node];
}

export function encodeXml(root: string, body: Obj): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build(objectToNodes(root, body)) as string}`;
}
