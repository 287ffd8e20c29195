/**
 * XML codec. Parsing uses saxes, a strict (well-formedness checking) streaming parser: one pass,
 * errors with line and column. Serialization is written here; its escaping is every writer's (xml-text.ts).
 */
import { SaxesParser } from 'saxes';
import { FiscalError } from '../../shared/errors.js';
import { type Obj, type Value, type Doc, LINE_ARRAYS, REPEATED, TEXT_ELEMENTS, isObj } from './model.js';
import { type ParseLimits, PARSE_LIMITS, ParseBudget, checkDepth, checkName, checkText, hasBadText } from './guard.js';
import { escapeAttr, escapeText } from './xml-text.js';

interface Element {
  name: string;
  /** the attributes (after a line's `_`: see parseTree), and after elementToValue the element's whole model */
  attrs: Obj;
  /** how many attributes `attrs` holds */
  nattrs: number;
  children: Element[];
  text: string;
}

const FORBIDDEN = /<!DOCTYPE|<!ENTITY/i;

function parseTree(text: string, budget: ParseBudget): Element {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const root: Element = { name: '', attrs: {}, nattrs: 0, children: [], text: '' };
  const stack: Element[] = [root];
  // the tag being read and its attribute being checked; the paths of refusals are built from them (and
  // the stack) only when one is made
  let tagName = '';
  let attrName = '';
  let attributes = 0;
  // without a reference (&...;), an attribute's value is characters of the body as they are: one scan of
  // the body checks every value's text
  const textsChecked = !text.includes('&') && !hasBadText(text);
  const here = (): string => stack.map((e) => e.name).filter(Boolean).concat(tagName).join('.');
  const hereAttr = (): string => `${here()}@${attrName}`;
  // the attributes of the tag being read, checked and kept as the parser reads them (the parser's own
  // object of them is a dictionary, slow to walk); a duplicate is refused by the parser at the tag's end
  let attrs: Obj = {};
  let line = false;
  parser.on('opentagstart', (tag) => {
    tagName = tag.name;
    attributes = 0;
    // a line's model is made with its type first, as the JSON form has it, instead of being copied behind it
    line = LINE_ARRAYS.has((stack[stack.length - 1] as Element).name);
    attrs = line ? { _: tagName } : {};
  });
  // counted as the parser reads them, so that a tag with too many is refused at the first one past the
  // limit, before the parser has collected (and checked for duplicates) all of them
  parser.on('attribute', (attribute) => {
    attributes += 1;
    if (attributes > budget.limits.maxAttributes) budget.attributes(attributes, here);
    attrName = attribute.name;
    // before it is kept: a "__proto__" would set the prototype
    checkName(attrName, 'xml', hereAttr);
    if (line && attrName === '_') throw lineTypeField(here());
    if (!textsChecked) checkText(attribute.value, 'xml', hereAttr);
    attrs[attrName] = attribute.value;
  });
  parser.on('opentag', (tag) => {
    checkDepth(stack.length, 'xml', here, budget.limits);
    budget.count(1 + attributes, here);
    checkName(tag.name, 'xml', here);
    // an element `_` in a line (the element below a line array)
    if (tag.name === '_' && LINE_ARRAYS.has(stack[stack.length - 2]?.name ?? '')) {
      throw lineTypeField(stack.map((e) => e.name).filter(Boolean).join('.'));
    }
    const el: Element = { name: tag.name, attrs, nattrs: attributes, children: [], text: '' };
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

/** The refusal of a line (`path` down to it) that names a type of its own: its type is its element's name. */
function lineTypeField(path: string): FiscalError {
  return new FiscalError('#MALFORMED', { format: 'XML', detail: `${path}: "_" is no field of a line, whose type is its element's name` });
}

/**
 * The model of an element; `names` are the elements down to it, for the path of a refusal. Arrays of
 * repeated children grow in place: copying them for each sibling made 40,000 siblings take seconds.
 */
function elementToValue(el: Element, budget: ParseBudget, names: string[], where: () => string): Value {
  const text = el.text.trim();
  if (el.children.length === 0 && el.nattrs === 0) return text;
  // the attributes' object was made for this element only: it becomes the model
  const out = el.attrs;
  let keys = el.nattrs;
  if (text !== '') {
    out.value = text;
    keys += 1;
  }
  names.push(el.name);
  for (const child of el.children) {
    const cname = child.name;
    // own properties only: `toString` or `valueOf` would otherwise find Object.prototype's
    const existing = Object.hasOwn(out, cname) ? out[cname] : undefined;
    if (existing === undefined) {
      keys += 1;
      if (keys > budget.limits.maxKeys) budget.keys(keys, where);
    }
    if (LINE_ARRAYS.has(cname)) {
      names.push(cname);
      out[cname] = child.children.map((line): Obj => {
        const v = elementToValue(line, budget, names, where);
        if (isObj(v)) return v;
        return v === '' ? { _: line.name } : { _: line.name, value: v };
      });
      names.pop();
      continue;
    }
    const v = elementToValue(child, budget, names, where);
    // an array here is always one this loop made (attributes are strings, line arrays are replaced)
    if (Array.isArray(existing)) existing.push(v);
    else if (REPEATED.has(cname)) out[cname] = [v];
    else out[cname] = existing === undefined ? v : [existing, v];
  }
  names.pop();
  return out;
}

/** Parses an XML body `<Root ...>...</Root>` within `limits` (guard.ts); refuses DOCTYPE and entity declarations. */
export function decodeXml(text: string, limits: ParseLimits = PARSE_LIMITS): Doc {
  // both declarations begin with "<!": most bodies have none, and the search for it is cheaper than the expression
  if (text.includes('<!') && FORBIDDEN.test(text)) throw new FiscalError('#XML_FORBIDDEN');
  const budget = new ParseBudget('xml', limits);
  let tree: Element;
  try {
    tree = parseTree(text, budget);
  } catch (e) {
    if (e instanceof FiscalError) throw e;
    throw new FiscalError('#MALFORMED', { format: 'XML', detail: e instanceof Error ? e.message : String(e) });
  }
  const rootEl = tree.children[0];
  if (!rootEl || tree.children.length !== 1) {
    throw new FiscalError('#MALFORMED', { format: 'XML', detail: `expected one root element, got ${tree.children.length}` });
  }
  const names: string[] = [];
  const v = elementToValue(rootEl, budget, names, () => names.join('.'));
  return { root: rootEl.name, body: isObj(v) ? v : {}, format: 'xml' };
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
