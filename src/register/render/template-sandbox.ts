/**
 * Runs a receipt template (pug or ejs) with the receipt's data, in a sandbox: custom layouts are
 * uploaded over HTTP, so their code must not reach the file system, the process or the network, nor
 * hold or crash the service.
 *
 * - The template is compiled on the service's thread into plain JavaScript (pug `compileClient`, ejs
 *   `client` mode); compiling never runs template code. `include`, `extends` and pug filters (which
 *   would `require` a module on the host at compile time) are refused while compiling.
 * - The code runs in a worker thread (layouts/sandbox-worker.ts: own heap with a limit, rejected
 *   promises stay there, the service's thread awaits the answer and goes on serving meanwhile) and
 *   there in a fresh node:vm context per render: only the language's
 *   built-ins, no `require`, `process`, timers, `Atomics` or `WebAssembly`; string and wasm code
 *   generation is off, so `eval`, `Function` and `this.constructor.constructor('...')` throw. The
 *   context's global object has no prototype on the host side, so no host object is reachable from it.
 * - The locals cross as JSON text and are parsed inside, so every object the template sees belongs to
 *   the context; the result crosses back as a primitive string, and an error's message is read inside
 *   the context too (a getter of a thrown object must not run outside the timeout).
 * - A timeout (1 s) covers the template and the promise jobs it queues (`microtaskMode: afterEvaluate`);
 *   a worker that has not answered 2 s later is terminated and replaced, with the same answer.
 * - Compiled code is cached by a hash of kind, name and source (here the generated code, in the worker
 *   the vm script).
 */
import { createHash } from 'node:crypto';
import type pug from 'pug';
import { ejsModule, pugModule } from '../../shared/lazy-modules.js';
import { FiscalError } from '../../shared/errors.js';
import { runInWorker } from './layouts/sandbox-worker.js';

export type TemplateKind = 'pug' | 'ejs';

/** How long one render may run. */
export const RENDER_TIMEOUT_MS = 1000;

/** Messages of the parser are cut here: they quote the template and must stay readable in a response. */
const MAX_MESSAGE = 2000;

/** Compiled scripts kept; a render service sees a handful of layouts, the editor's preview many drafts. */
const CACHE_SIZE = 200;

const cache = new Map<string, string>();

/** AST nodes that would read other files or run host code at compile time. */
const REFUSED_PUG_NODES: Readonly<Record<string, string>> = {
  Include: 'include is not allowed in a layout (layouts cannot read files)',
  RawInclude: 'include is not allowed in a layout (layouts cannot read files)',
  Extends: 'extends is not allowed in a layout (layouts cannot read files)',
  Filter: 'filters (:name) are not allowed in a layout',
};

/** Renders `source` (named `name` in error messages) with JSON-like `locals`; rejects with FiscalError #PUG_SYNTAX_ERROR on a syntax error, #INVALID_VALUE when it fails or runs too long. */
export async function renderTemplate(kind: TemplateKind, source: string, name: string, locals: Record<string, unknown>, options: { timeoutMs?: number } = {}): Promise<string> {
  const { key, code } = compiled(kind, source, name);
  let json: string;
  try {
    json = JSON.stringify(locals);
  } catch (e) {
    throw new FiscalError('#INVALID_VALUE', { field: `layout ${name}`, detail: `the template's data cannot be passed to it: ${messageOf(e)}` });
  }
  const timeoutMs = options.timeoutMs ?? RENDER_TIMEOUT_MS;
  const outcome = await runInWorker({ key, source: code, filename: `layout:${name}`, json, timeoutMs });
  if (outcome.kind === 'timeout') throw new FiscalError('#INVALID_VALUE', { field: `layout ${name}`, detail: `the template ran longer than ${timeoutMs} ms and was stopped` });
  // the same answer as a timeout: the client's template could not be run in time, here because others hold the sandbox
  if (outcome.kind === 'busy') throw new FiscalError('#INVALID_VALUE', { field: `layout ${name}`, detail: `the template could not start: the template sandbox was busy with other templates (${outcome.waitedMs} ms)` });
  if (outcome.kind === 'failed') throw new FiscalError('#INVALID_VALUE', { field: `layout ${name}`, detail: outcome.detail });
  const out = outcome.out;
  if (out.startsWith('E')) throw new FiscalError('#INVALID_VALUE', { field: `layout ${name}`, detail: `the template failed: ${cut(out.slice(1))}` });
  return out.slice(1);
}

/** Compiles a template without running it: throws #PUG_SYNTAX_ERROR with the parser's message. Used to check uploads. */
export function checkTemplate(kind: TemplateKind, source: string, name: string): void {
  compiled(kind, source, name);
}

/** The script for the worker, by the hash of what it was made from. */
function compiled(kind: TemplateKind, source: string, name: string): { key: string; code: string } {
  const key = createHash('sha256').update(`${kind}\0${name}\0${source}`).digest('hex');
  const hit = cache.get(key);
  if (hit !== undefined) {
    // most recently used last, so the oldest is the first to go
    cache.delete(key);
    cache.set(key, hit);
    return { key, code: hit };
  }
  const code = wrap(kind === 'pug' ? compilePug(source, name) : compileEjs(source, name));
  cache.set(key, code);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return { key, code };
}

/**
 * The script run in the context: `code` defines `__efrTemplate(locals)`. The answer is 'R' + output or
 * 'E' + message, always a primitive string built inside the context (under the timeout).
 */
function wrap(code: string): string {
  return `${code}
;(function () {
  var json = __efrLocals;
  delete globalThis.__efrLocals;
  delete globalThis.Atomics;
  delete globalThis.SharedArrayBuffer;
  delete globalThis.WebAssembly;
  try {
    var out = __efrTemplate(JSON.parse(json));
    return 'R' + (typeof out === 'string' ? out : String(out));
  } catch (e) {
    var m;
    try {
      m = e !== null && typeof e === 'object' && typeof e.message === 'string' ? e.message : String(e);
    } catch (e2) {
      m = 'an error that cannot be shown';
    }
    return 'E' + m;
  }
})();`;
}

function compilePug(source: string, name: string): string {
  const refuse = (what: string) => (): never => {
    throw new Error(what);
  };
  try {
    const code = pugModule().compileClient(source, {
      filename: name,
      name: '__efrTemplate',
      inlineRuntimeFunctions: true,
      compileDebug: true,
      // the hooks pug offers around its AST and file access (the type definitions do not list them)
      plugins: [{ preLoad: refusePugNodes, resolve: refuse('include and extends are not allowed in a layout'), read: refuse('layouts cannot read files') }],
    } as pug.Options);
    return code;
  } catch (e) {
    throw new FiscalError('#PUG_SYNTAX_ERROR', { value: name, detail: cut(messageOf(e)) });
  }
}

interface PugNode {
  type?: unknown;
  line?: unknown;
  [key: string]: unknown;
}

/** Walks the whole AST (blocks, branches, cases, mixins) and refuses the nodes that read files or run filters. */
function refusePugNodes(ast: PugNode): PugNode {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const n = node as PugNode;
    if (typeof n.type === 'string' && n.type in REFUSED_PUG_NODES) {
      const line = typeof n.line === 'number' ? ` (line ${n.line})` : '';
      throw new Error(`${REFUSED_PUG_NODES[n.type]}${line}`);
    }
    for (const v of Object.values(n)) if (v !== null && typeof v === 'object') walk(v);
  };
  walk(ast);
  return ast;
}

/** Escapes like ejs's own escapeXML; defined in the context so no host function is handed in. */
const EJS_ESCAPE = `function (s) {
  return s == null ? '' : String(s).replace(/[&<>'"]/g, function (c) {
    return c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&#34;' : '&#39;';
  });
}`;

function compileEjs(source: string, name: string): string {
  let fn: { toString(): string };
  try {
    fn = ejsModule().compile(source, { client: true, compileDebug: true, filename: name, strict: false, async: false });
  } catch (e) {
    // ejs adds hints after a blank line; the first part is the parser's message
    const msg = messageOf(e).split('\n\n')[0] ?? '';
    throw new FiscalError('#PUG_SYNTAX_ERROR', { value: name, detail: cut(msg) });
  }
  // `function anonymous(locals, escapeFn, include, rethrow) {...}`; include is refused at run time
  return `var __efrTemplate = (function () {
  var escapeFn = ${EJS_ESCAPE};
  var render = (${fn.toString()});
  function include() { throw new Error('include is not allowed in a layout (layouts cannot read files)'); }
  return function (locals) { return render(locals, escapeFn, include, undefined); };
})();`;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function cut(s: string): string {
  return s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE)}...` : s;
}
