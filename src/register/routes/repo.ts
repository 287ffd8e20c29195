/**
 * The audit trail of documented files (PUT/GET /repo): every new version of a file is journaled as an
 * Audit record with the line diff against the previous version and the journal's signature; the
 * journal is the only place the versions live, so GET /repo reads the newest one from it.
 */
import type { FastifyInstance } from 'fastify';
import { diffArrays } from 'diff';
import { FiscalError } from '../../shared/errors.js';
import { type Obj, contentType, encode, obj, responseFormat, str } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { formatLocalDateTime } from '../esr/datetime.js';
import { signingPayload } from '../journal/chain.js';
import { appendRecord } from '../record-writer.js';
import { rnOfQuery } from '../register-number.js';
import type { Register } from '../registers.js';
import { guarded, queryOf } from './http.js';

const FILE_NAME = /^[\w][\w.\- ]{0,199}$/;
/** The largest documented file: a configuration, price list or layout, not a database. */
const MAX_TEXT = 1024 * 1024;

/** Lines removed (`-<line number in the old text> text`) and added (`+<line number in the new text> text`). */
export function lineDiff(before: string, after: string): string[] {
  // a final line break ends the last line; it does not start an empty one
  const split = (t: string): string[] => (t === '' ? [] : t.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n'));
  const out: string[] = [];
  let oldLine = 1;
  let newLine = 1;
  const a = split(before);
  const b = split(after);
  // bounded work: past this many edits the whole old text is listed as removed and the new as added
  const parts = diffArrays(a, b, { maxEditLength: 2000 }) ?? [
    { value: a, removed: true, added: false, count: a.length },
    { value: b, added: true, removed: false, count: b.length },
  ];
  for (const part of parts) {
    for (const line of part.value) {
      if (part.removed) out.push(`-${oldLine++} ${line}`);
      else if (part.added) out.push(`+${newLine++} ${line}`);
      else {
        oldLine += 1;
        newLine += 1;
      }
    }
  }
  return out;
}

function fileOf(q: Readonly<Record<string, string>>): string {
  const file = q.file;
  if (!file) throw new FiscalError('#MISSING_FIELD', { field: 'file' });
  if (!FILE_NAME.test(file)) throw new FiscalError('#INVALID_VALUE', { field: 'file', detail: `a file name of letters, digits, . - _ and spaces, got "${file}"` });
  return file;
}

/** The newest version of a file: one indexed read, however many versions there are. */
async function current(ctx: ServiceContext, reg: Register, file: string): Promise<{ text: string; sq: number } | undefined> {
  for await (const last of ctx.store.find(reg.state.rid, { ref: `REPO:${file}`, sort: 'desc' }, 1)) {
    return { text: str(obj(JSON.parse(last.data) as Obj, 'Audit') ?? {}, 'Text') ?? '', sq: last.sq };
  }
  return undefined;
}

export function repoRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  // one PUT per file at a time, so that each diff is taken against the version before it
  const queues = new Map<string, Promise<unknown>>();

  app.put('/repo', async (req, res) =>
    guarded(ctx, req, res, 'AuditC', async () => {
      const q = queryOf(req);
      const file = fileOf(q);
      const rn = rnOfQuery(ctx, q);
      const text = typeof req.body === 'string' ? req.body : '';
      if (text.length > MAX_TEXT) throw new FiscalError('#INVALID_VALUE', { field: 'file', detail: `at most ${MAX_TEXT} characters, got ${text.length}` });
      const key = `${rn}\n${file}`;
      const run = (queues.get(key) ?? Promise.resolve()).catch(() => undefined).then(async () => {
        const reg = await ctx.registers.getOrCreate(rn);
        const before = (await current(ctx, reg, file))?.text ?? '';
        const diff = lineDiff(before, text);
        const d = formatLocalDateTime(ctx.clock.now());
        const audit: Obj = { TY: 'REPO', Method: 'PUT', File: file, Diff: diff, Text: text };
        const sealed = await appendRecord(ctx, reg, { type: 'Audit', data: { TS: d, Audit: audit }, index: { d, ref: `REPO:${file}` } });
        const payload = signingPayload(sealed.data, sealed.hash.toString('hex'));
        return {
          SQ: str(sealed.data, 'SQ') ?? '',
          Result: { RC: 'OK' },
          TY: 'REPO',
          Method: 'PUT',
          File: file,
          Diff: diff,
          Fis: { Payload: payload, Signature: sealed.sig.toString('base64') },
        } satisfies Obj;
      });
      queues.set(key, run);
      const body = await run;
      if (queues.get(key) === run) queues.delete(key);
      const format = responseFormat(req.headers.accept, 'json');
      return res.code(200).type(contentType(format)).send(encode(format, 'AuditC', body));
    }),
  );

  app.get('/repo', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const q = queryOf(req);
      const file = fileOf(q);
      const rn = rnOfQuery(ctx, q);
      const reg = ctx.registers.get(rn);
      const found = reg ? await current(ctx, reg, file) : undefined;
      if (!found) throw new FiscalError('#NOT_FOUND', { value: `file ${file}` });
      const accept = (req.headers.accept ?? '').toLowerCase();
      // a browser (text/html first) gets the text; a client asking for JSON or XML gets the record
      if (!accept.includes('html') && (accept.includes('json') || accept.includes('xml'))) {
        const format = responseFormat(accept, 'json');
        return res.code(200).type(contentType(format)).send(encode(format, 'Repo', { File: file, SQ: String(found.sq), Text: found.text }));
      }
      return res.code(200).type('text/plain; charset=utf-8').send(found.text);
    }),
  );
}
