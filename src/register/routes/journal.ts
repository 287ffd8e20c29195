/** GET /find, GET /tra, GET /retrieve: reading the journal. */
import { Readable } from 'node:stream';
import { mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import { type Obj, contentType, encodeJsonValue, encodeXmlElement } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { type ParsedFind, encodeContinuation, matchesFilters, parseFind } from '../journal/find-query.js';
import { RECORDS_PER_FILE, jouFileName } from '../journal/export/jou-export.js';
import { recordView } from '../journal/record-view.js';
import { rnOfQuery } from '../register-number.js';
import { authorityOf, withAuthorityAnswer } from '../fiscal/delivery/answers.js';
import { withEinvoiceAnswer } from '../einvoice/answers.js';
import { requireLocalOrPassword } from '../security/local-or-password.js';
import { formatOf, guarded, queryOf, registerOf, sendDoc } from './http.js';

/** One page of a search (GET /find and the journal page): the matching records, and where the next page starts. */
export interface FoundPage {
  records: Obj[];
  /** the continuation of the next page, when there may be more */
  continuation?: string;
  /** the time limit ended the page early */
  timedOut: boolean;
  ms: number;
}

/**
 * Runs a parsed search over a register's journal: at most `rows` matching records, within `ms` (at least one
 * record is looked at, so that paging always makes progress); `accept` is an extra filter on the record views.
 */
export async function findPage(ctx: ServiceContext, rid: number, parsed: ParsedFind, accept: (view: Obj) => boolean = () => true): Promise<FoundPage> {
  const { query, filters, rows, ms } = parsed;
  const started = Date.now();
  const records: Obj[] = [];
  let lastSq: number | undefined;
  let more = false;
  let timedOut = false;
  // Croatia, Slovenia: a receipt is shown with the authority's answer (JIR, EOR) journaled after it
  const reg = ctx.registers.list().find((x) => x.state.rid === rid);
  const reported = reg !== undefined && authorityOf(reg) !== undefined ? reg : undefined;
  for await (const r of ctx.store.find(rid, query, Math.min(rows + 1, 500))) {
    if (records.length >= rows) {
      more = true;
      break;
    }
    if (lastSq !== undefined && Date.now() - started > ms) {
      timedOut = true;
      more = true;
      break;
    }
    lastSq = r.sq;
    const answered = reported && r.type === 'Tra' ? await withAuthorityAnswer(ctx, reported, r.sq, recordView(r)) : recordView(r);
    // an invoice with an e-invoice: its delivery (journaled after it) in Fis.EInvoice
    const view = reg && r.type === 'Tra' ? await withEinvoiceAnswer(ctx, reg, r.sq, answered) : answered;
    if (matchesFilters(view, filters) && accept(view)) records.push(view);
  }
  const page: FoundPage = { records, timedOut, ms };
  if (more && lastSq !== undefined) page.continuation = encodeContinuation({ rid, sort: query.sort, sq: lastSq });
  return page;
}

export function journalRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/find', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const q = queryOf(req);
      const reg = await registerOf(ctx, q);
      const { records, continuation, timedOut, ms } = await findPage(ctx, reg.state.rid, parseFind(q, reg.state.rid));
      const body: Obj = { Count: String(records.length) };
      if (continuation !== undefined) body.Continuation = continuation;
      if (timedOut) body.Warning = [`stopped after ${ms} ms; continue with the continuation`];
      body.Records = records;
      return sendDoc(res, formatOf(req), 'Find', body);
    }),
  );

  app.get('/tra', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const q = queryOf(req);
      const reg = await registerOf(ctx, q);
      if (!q.tn) throw new FiscalError('#MISSING_FIELD', { field: 'TN' });
      const tt = q.tt ?? '1';
      const tl = q.tl ?? '';
      for await (const r of ctx.store.find(reg.state.rid, { type: 'Tra', tl, tt, tn: q.tn, sort: 'desc' }, 1)) {
        const { _, ...view } = recordView(r);
        return sendDoc(res, formatOf(req), 'Tra', view);
      }
      throw new FiscalError('#NOT_FOUND', { value: `transaction ${tl}/${tt}/${q.tn}` });
    }),
  );

  app.get('/retrieve', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const q = queryOf(req);
      const rn = rnOfQuery(ctx, q);
      requireLocalOrPassword(ctx, req, q, rn, 'GET /retrieve');
      const reg = await registerOf(ctx, q);
      if (q.last === undefined) throw new FiscalError('#MISSING_FIELD', { field: 'last' });
      if (!/^\d{1,15}$/.test(q.last)) throw new FiscalError('#INVALID_VALUE', { field: 'last', detail: `the SQ after which to read (0 = from the start), got "${q.last}"` });
      if (q.endsq !== undefined && !/^\d{1,15}$/.test(q.endsq)) throw new FiscalError('#INVALID_VALUE', { field: 'endSQ', detail: `an SQ, got "${q.endsq}"` });
      const { query, filters } = parseFind({ ...q, sort: 'asc', continuation: '' }, reg.state.rid, { sort: 'asc' });
      query.afterSq = Number(q.last);
      if (q.endsq !== undefined) query.endSq = Number(q.endsq);
      const matching = async function* (): AsyncGenerator<Obj> {
        for await (const r of ctx.store.find(reg.state.rid, query, 500)) {
          const view = recordView(r);
          if (matchesFilters(view, filters)) yield view;
        }
      };
      if (q.target) return sendDoc(res, formatOf(req), 'Retrieve', await writeTarget(ctx, q.target, matching()));
      const format = formatOf(req);
      const stream = async function* (): AsyncGenerator<string> {
        let first = true;
        if (format === 'xml') {
          yield '<?xml version="1.0" encoding="UTF-8"?>\n<Retrieve><Records>';
          for await (const v of matching()) {
            const { _, ...rest } = v;
            yield encodeXmlElement(typeof _ === 'string' ? _ : 'Record', rest);
          }
          yield '</Records></Retrieve>';
        } else {
          yield '{"Retrieve":{"Records":[';
          for await (const v of matching()) {
            yield `${first ? '' : ','}${encodeJsonValue('', v)}`;
            first = false;
          }
          yield ']}}';
        }
      };
      return res.code(200).type(contentType(format)).send(Readable.from(stream()));
    }),
  );
}

/** `target`: files of 1000 records (`NNNN.jou`, JSON arrays) in a folder under `<data>/retrieve/`. */
async function writeTarget(ctx: ServiceContext, target: string, records: AsyncIterable<Obj>): Promise<Obj> {
  const rel = normalize(target).replace(/^[/\\]+/, '');
  if (isAbsolute(target) || rel.split(sep).includes('..') || rel === '' || rel === '.') {
    throw new FiscalError('#INVALID_VALUE', { field: 'target', detail: `a folder name below the data folder's retrieve/ folder, got "${target}"` });
  }
  const dir = join(ctx.dataDir, 'retrieve', rel);
  mkdirSync(dir, { recursive: true });
  let count = 0;
  let file = -1;
  let batch: string[] = [];
  const files: string[] = [];
  const flush = (): void => {
    if (file < 0 || batch.length === 0) return;
    const name = jouFileName(file);
    writeFileSync(join(dir, name), `[${batch.join(',\n')}]\n`);
    files.push(name);
    batch = [];
  };
  for await (const v of records) {
    const n = Math.floor(Number(v.SQ) / RECORDS_PER_FILE);
    if (n !== file) {
      flush();
      file = n;
    }
    batch.push(encodeJsonValue('', v));
    count += 1;
  }
  flush();
  return { Count: String(count), Target: join('retrieve', rel), Files: files.join(' ') };
}
