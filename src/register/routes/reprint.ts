/**
 * /jou/reprintcnt (deprecated, still served): GET reads how often a receipt was reprinted, POST counts
 * one more reprint by registering it as the non-fiscal transaction that replaces this route (NFS=DUP).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { Obj } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { referenceOf } from '../originals.js';
import { registerTransaction } from '../pipeline.js';
import { rnOfQuery } from '../register-number.js';
import { guarded, queryOf, send } from './http.js';

function originalNamed(q: Readonly<Record<string, string>>): Obj {
  if (q.fn || q.esr) return { RFN: (q.fn ?? q.esr) as string };
  if (q.tn) return { RTL: q.tl ?? '', RTT: q.tt ?? '1', RTN: q.tn, TL: q.tl ?? '', TT: q.tt ?? '1' };
  throw new FiscalError('#MISSING_FIELD', { field: 'TN (with TL and TT) or FN' });
}

async function count(ctx: ServiceContext, req: FastifyRequest): Promise<number> {
  const q = queryOf(req);
  const reg = ctx.registers.get(rnOfQuery(ctx, q));
  if (!reg) return 0;
  const { ref } = await referenceOf(ctx, reg, originalNamed(q));
  if (!ref) return 0;
  return (await ctx.store.byRef(reg.state.rid, ref)).filter((r) => r.bc === 'reprint').length;
}

export function reprintRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/jou/reprintcnt', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => res.code(200).type('text/plain; charset=utf-8').send(String(await count(ctx, req)))),
  );

  app.post('/jou/reprintcnt', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const q = queryOf(req);
      const named = originalNamed(q);
      const rn = rnOfQuery(ctx, q);
      // the receipt reprinted must be one this register holds
      const reg = ctx.registers.get(rn);
      const found = reg ? (await referenceOf(ctx, reg, named)).original : undefined;
      if (!found) throw new FiscalError('#NOT_FOUND', { value: `receipt ${q.fn ?? q.esr ?? `${q.tl ?? ''}/${q.tt ?? '1'}/${q.tn ?? ''}`}` });
      const reply = await registerTransaction(ctx, { text: '', query: q, mode: 'register', accept: req.headers.accept }, async () => ({
        rn,
        doc: { root: 'Tra', format: 'json', body: { ESR: { NFS: 'DUP', ...(q.tl ? { TL: q.tl } : {}), ...(q.tt ? { TT: q.tt } : {}), ...named } } },
      }));
      if (reply.status !== 200) return send(res, reply);
      return res.code(200).type('text/plain; charset=utf-8').send(String(await count(ctx, req)));
    }),
  );
}
