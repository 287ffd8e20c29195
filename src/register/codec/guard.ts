/**
 * Limits every decoded document keeps, whatever its format: a bounded depth, property names that are
 * XML names (so any document can be answered in either format; `__proto__` cannot reach an object's
 * prototype), and text without characters that XML 1.0 cannot carry.
 *
 * And bounds on the work a body can cause. The body limits of the routes (2 MiB for a transaction)
 * bound the bytes, not the work: a 2 MiB body can hold a million tiny nodes, or one element with
 * 190,000 attributes, and objects that wide are slow to build in V8. The limits below refuse such a body
 * while it is being decoded, with `#MALFORMED` (RC BAD, HTTP 400) naming the limit and where it was
 * reached. Each is far above what a legitimate request needs; they are counted in the loops the decoders
 * run anyway (no pass of their own).
 */
import { FiscalError } from '../../shared/errors.js';
import type { Format } from './model.js';

/**
 * Nesting depth of a document. A transaction is 4 levels deep (Tra.ESR.PosA[i].field); the decoders
 * recurse, so depth also bounds the stack.
 */
export const MAX_DEPTH = 32;

/**
 * Attributes of one XML element. The widest element of the interface is a position (about 45 fields in
 * the spec, company fields besides) or ESR (36 fields and country ones): 1000 leaves room twenty times
 * over. Counted while the parser reads them, so an element with 190,000 attributes is refused at the
 * 1001st instead of after all of them are collected (the parser's duplicate check and our copy build
 * objects with one property per attribute).
 */
export const MAX_ATTRIBUTES = 1000;

/**
 * Properties of one object: keys of a JSON object; in XML the attributes of an element plus the distinct
 * names of its children. Same reasoning as MAX_ATTRIBUTES; repeated children (lines, Tag, Dev) become one
 * array and count once.
 */
export const MAX_KEYS = 1000;

/**
 * Nodes of one document: elements, attributes, object properties and array items. A transaction at the
 * pipeline's limit of 5000 lines with 20 fields each is about 105,000 nodes (in JSON and in XML alike);
 * 5000 positions with 40 fields and 5000 payments with 9 about 250,000. 300,000 passes every such
 * transaction, as well as configuration documents and the service's own answers, and bounds the
 * tree built for a body of degenerate tiny nodes (a 2 MiB body can hold a million).
 */
export const MAX_NODES = 300_000;

/**
 * Time to decode one document, in milliseconds. The slowest legitimate body (a 5000-line transaction
 * with JSON numbers, which is parsed twice to keep the numbers' text) decodes in about 150 ms; 2000
 * leaves room for a busy machine and still bounds how long one request holds the event loop, whatever
 * per-node cost the other limits did not foresee.
 */
export const MAX_PARSE_MS = 2000;

/** Nodes between two looks at the clock: a look costs about as much as decoding a few nodes. */
export const CLOCK_EVERY = 4096;

/** The limits one decode keeps; tests give smaller ones, or a clock of their own. */
export interface ParseLimits {
  readonly maxDepth: number;
  readonly maxAttributes: number;
  readonly maxKeys: number;
  readonly maxNodes: number;
  readonly maxParseMs: number;
  readonly now: () => number;
}

export const PARSE_LIMITS: ParseLimits = {
  maxDepth: MAX_DEPTH,
  maxAttributes: MAX_ATTRIBUTES,
  maxKeys: MAX_KEYS,
  maxNodes: MAX_NODES,
  maxParseMs: MAX_PARSE_MS,
  now: () => performance.now(),
};

const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*$/;
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
// C0 controls other than tab, line feed and carriage return, and the non-characters U+FFFE/U+FFFF
// eslint-disable-next-line no-control-regex
const BAD_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

const FORMAT: Readonly<Record<Format, string>> = { json: 'JSON', xml: 'XML' };

/** Where the problem is; a function when the path is costly to build and only needed on failure. */
type Path = string | (() => string);
const pathText = (p: Path): string => (typeof p === 'function' ? p() : p) || 'the root';

function refuse(format: Format, detail: string): FiscalError {
  return new FiscalError('#MALFORMED', { format: FORMAT[format], detail });
}

/**
 * Names that passed checkName: the same few dozen come in every request, and a look-up is cheaper than the
 * regular expression. Bounded, since names come from clients.
 */
const CHECKED_NAMES = new Set<string>();
const MAX_CHECKED_NAMES = 4096;

export function checkName(name: string, format: Format, path: Path): void {
  if (CHECKED_NAMES.has(name)) return;
  if (!NAME.test(name) || FORBIDDEN_NAMES.has(name)) {
    throw refuse(format, `property name "${name.slice(0, 40)}" at ${pathText(path)} is not allowed`);
  }
  if (CHECKED_NAMES.size < MAX_CHECKED_NAMES) CHECKED_NAMES.add(name);
}

/** Whether a text holds a character checkText refuses (one scan of a whole body). */
export function hasBadText(text: string): boolean {
  return BAD_TEXT.test(text);
}

export function checkText(text: string, format: Format, path: Path): void {
  if (BAD_TEXT.test(text)) throw refuse(format, `${pathText(path)} contains a control character`);
}

export function checkDepth(depth: number, format: Format, path: Path, limits: ParseLimits = PARSE_LIMITS): void {
  if (depth > limits.maxDepth) throw refuse(format, `${pathText(path)} is nested deeper than ${limits.maxDepth} levels`);
}

/**
 * The work of one decode: counts nodes against MAX_NODES and looks at the clock every CLOCK_EVERY nodes
 * against MAX_PARSE_MS. `count` is called once per container or element with its number of nodes, so the
 * common case is one addition and one comparison.
 */
export class ParseBudget {
  private nodes = 0;
  /** the node count at which `count` next leaves its fast path: a clock look, or the node limit */
  private next: number;
  private readonly deadline: number;

  constructor(
    private readonly format: Format,
    readonly limits: ParseLimits = PARSE_LIMITS,
  ) {
    this.deadline = limits.now() + limits.maxParseMs;
    this.next = Math.min(CLOCK_EVERY, limits.maxNodes + 1);
  }

  count(n: number, path: Path): void {
    this.nodes += n;
    if (this.nodes >= this.next) this.check(path);
  }

  private check(path: Path): void {
    const { maxNodes, maxParseMs } = this.limits;
    if (this.nodes > maxNodes) {
      throw refuse(this.format, `the document has more than ${maxNodes} nodes (the limit of elements, attributes, properties and array items per document), reached at ${pathText(path)}`);
    }
    if (this.limits.now() > this.deadline) {
      throw refuse(this.format, `decoding took longer than ${maxParseMs} ms (the limit per document), stopped at ${pathText(path)}`);
    }
    this.next = Math.min(this.nodes + CLOCK_EVERY, maxNodes + 1);
  }

  /** Refuses an element with more attributes than MAX_ATTRIBUTES; `count` is its attributes so far. */
  attributes(count: number, path: Path): void {
    if (count > this.limits.maxAttributes) {
      throw refuse(this.format, `${pathText(path)} has more than ${this.limits.maxAttributes} attributes (the limit per element)`);
    }
  }

  /** Refuses an object with more properties than MAX_KEYS. */
  keys(count: number, path: Path): void {
    if (count > this.limits.maxKeys) {
      throw refuse(this.format, `${pathText(path)} has more than ${this.limits.maxKeys} properties (the limit per object)`);
    }
  }
}
