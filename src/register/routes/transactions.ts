/** POST /register, POST /restart, GET /last. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import type { RecordType, RegisterState } from '../journal/types.js';
import { RECORD_TYPES } from '../journal/types.js';
import { type Mode, registerTransaction } from '../pipeline.js';
import { buildVoid } from '../void.js';
import { scopeOf } from '../security/cloud-auth.js';
import { lastInScope, scopedVoid } from '../security/token-scope.js';
import { failureOf, failureReply, reply } from '../respond.js';
import { answerOf } from '../record-answer.js';
import { lastWithAnswer } from '../fiscal/delivery/answers.js';
import { withEinvoiceAnswer } from '../einvoice/answers.js';
import { printingNow } from '../peripherals/receipt-printout.js';
import { formatOf, guarded, queryOf, registerOf, send } from './http.js';
import { interimRegister } from '../maintenance/interim-102.js';

/**
 * The SQ of the register's last answer: its newest record but a `log` one. The service writes log records
 * itself (its start, a country's events) and answers no request with one, so a POS asking for the answer it
 * may have missed gets its transaction, not the start that came after it.
 */
function lastAnswered(state: RegisterState): number | undefined {
  const sqs = Object.entries(state.last).filter(([type]) => type !== 'log').map(([, sq]) => sq ?? 0);
  const sq = Math.max(0, ...sqs);
  return sq > 0 ? sq : undefined;
}

export function transactionRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const handler = (mode: Mode) => async (req: FastifyRequest) =>
    registerTransaction(ctx, {
      text: typeof req.body === 'string' ? req.body : '',
      contentType: req.headers['content-type'],
      accept: req.headers.accept,
      query: queryOf(req),
      mode,
      scope: scopeOf(req),
      onRegister: (rn) => interimRegister(ctx, req.raw, rn),
    });

  app.post('/register', async (req, res) => send(res, await handler('register')(req)));
  app.post('/restart', async (req, res) => send(res, await handler('restart')(req)));

  const voidHandler = (last: boolean) => async (req: FastifyRequest) =>
    registerTransaction(
      ctx,
      { text: typeof req.body === 'string' ? req.body : '', contentType: req.headers['content-type'], accept: req.headers.accept, query: queryOf(req), mode: 'register', scope: scopeOf(req), onRegister: (rn) => interimRegister(ctx, req.raw, rn) },
      scopedVoid(buildVoid(ctx, queryOf(req), last), scopeOf(req), last),
    );
  app.post('/register/void', async (req, res) => send(res, await voidHandler(false)(req)));
  app.post('/register/void/last', async (req, res) => send(res, await voidHandler(true)(req)));

  app.get('/last', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const q = queryOf(req);
      const reg = await registerOf(ctx, q);
      const rn = reg.state.rn;
      // a transaction of this register is being processed with its printout: 423 Locked
      if (printingNow(ctx, rn)) {
        const locked = failureReply(formatOf(req), 'Result', failureOf(new FiscalError('#PRINTING', { rn }), ctx.registers.lang(reg)), false);
        return send(res, { ...locked, status: 423 });
      }
      const filter = q._;
      if (filter !== undefined && !(RECORD_TYPES as readonly string[]).includes(filter)) {
        throw new FiscalError('#INVALID_TYPE', { field: '_', expected: `one of ${RECORD_TYPES.join(', ')}`, value: filter });
      }
      const key: RecordType | 'any' = (filter as RecordType | undefined) ?? 'any';
      // cloud mode, one register for several terminals: the last record of the token's terminal
      let answer = (await lastInScope(ctx, reg, key, scopeOf(req))) ?? reg.last.get(key);
      if (!answer) {
        // not answered since the start: read the last such record once
        const sq = key === 'any' ? lastAnswered(reg.state) : reg.state.last[key];
        const record = sq ? await ctx.registers.record(reg, sq) : undefined;
        if (!record) throw new FiscalError('#NOT_FOUND', { value: `last ${filter ?? 'record'} of ${rn}` });
        const last = await lastWithAnswer(ctx, reg, record);
        // an invoice with its e-invoice's delivery, journaled after it
        answer = answerOf(record.type === 'Tra' ? { ...last, data: await withEinvoiceAnswer(ctx, reg, record.sq, last.data) } : last);
        reg.last.set(key, answer);
      }
      return send(res, reply(formatOf(req), answer));
    }),
  );
}
