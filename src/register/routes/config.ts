/** GET/POST /cfg, GET/POST /profile, GET /state. */
import type { FastifyInstance } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import { type Obj, bodyFormat, contentType, decodeBody } from '../codec/index.js';
import { saveCfg } from '../cfg.js';
import type { ServiceContext } from '../context.js';
import { remember } from '../record-writer.js';
import { answerOf, sealedOf } from '../record-answer.js';
import { saveProfile } from '../save-profile.js';
import { registerNumber, rnOfQuery } from '../register-number.js';
import { STATE_BOOLEANS, STATE_NUMBERS, stateRecord } from '../state-record.js';
import { scopeOf } from '../security/cloud-auth.js';
import { checkRegisterScope, visibleTo } from '../security/token-scope.js';
import { obj, str } from '../codec/index.js';
import { formatOf, guarded, queryOf, sendDoc, sendJson } from './http.js';

function typedState(record: Obj): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    if (STATE_NUMBERS.has(k) && typeof v === 'string') out[k] = Number(v);
    else if (STATE_BOOLEANS.has(k) && typeof v === 'string') out[k] = v === 'true';
    else out[k] = v;
  }
  return out;
}

/** The profile in JSON: its flags as booleans, as GET and POST /profile both answer them. */
function typedProfile(view: Obj): Record<string, unknown> {
  return { ...view, RN_TT: view.RN_TT === 'true', PasswordSet: view.PasswordSet === 'true' };
}

/**
 * The register a Cfg is saved to (POST /cfg and the base-data page): `rn` of the query; in Multi POS without
 * `rn` (and TT) the register follows from the base data itself (Cmp.TaxId, Loc.TL, Trm.TT).
 */
export function cfgRnOf(ctx: ServiceContext, q: Readonly<Record<string, string>>, cfg: Obj): string {
  if (!q.rn && !q.tt && ctx.profiles.multiPos()) {
    const tl = str(obj(cfg, 'Loc') ?? {}, 'TL');
    const tt = str(obj(cfg, 'Trm') ?? {}, 'TT');
    const taxId = str(obj(cfg, 'Cmp') ?? {}, 'TaxId') ?? q.taxid ?? ctx.profiles.own('def').TaxId;
    if (!tl || !tt || !taxId) throw new FiscalError('#REGISTER_REQUIRED', { field: 'rn (or Cfg.Cmp.TaxId, Cfg.Loc.TL and Cfg.Trm.TT)' });
    return registerNumber(taxId, tl, tt);
  }
  return rnOfQuery(ctx, q);
}

export function configRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/cfg', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const rn = rnOfQuery(ctx, queryOf(req));
      const reg = ctx.registers.get(rn);
      return sendDoc(res, formatOf(req), 'Cfg', reg ? reg.state.cfg : {});
    }),
  );

  app.post('/cfg', async (req, res) =>
    guarded(ctx, req, res, 'CfgC', async () => {
      const doc = decodeBody(typeof req.body === 'string' ? req.body : '', req.headers['content-type'], 'Cfg');
      if (doc.root !== 'Cfg') throw new FiscalError('#UNKNOWN_ROOT', { field: doc.root, expected: 'Cfg' });
      const rn = cfgRnOf(ctx, queryOf(req), doc.body);
      // in Multi POS the register may come from the body: a tenant's token reaches only its own
      const scope = scopeOf(req);
      if (scope) checkRegisterScope(ctx, scope, rn);
      const reg = await ctx.registers.getOrCreate(rn);
      const outcome = await saveCfg(ctx, reg, doc.body);
      if (outcome.sealed) remember(reg, 'Cfg', outcome.sealed);
      // the record in force: the one just made, or the identical one recorded before
      const record = outcome.sealed ?? (outcome.sq > 0 ? await ctx.registers.record(reg, outcome.sq).then((r) => (r ? sealedOf(r) : undefined)) : undefined);
      const body: Obj = record ? answerOf(record).body : { SQ: String(outcome.sq) };
      body.Result = outcome.warnings.length ? { RC: 'OK', Warning: outcome.warnings } : { RC: 'OK' };
      return sendDoc(res, formatOf(req), 'CfgC', body);
    }),
  );

  app.get('/profile', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const rn = queryOf(req).rn ?? 'def';
      const view = ctx.profiles.view(rn);
      return sendJson(res, req, 'Profile', typedProfile(view), view);
    }),
  );

  app.post('/profile', async (req, res) =>
    guarded(ctx, req, res, 'ProfileC', async () => {
      const body = decodeProfile(typeof req.body === 'string' ? req.body : '', req.headers['content-type']);
      const rn = queryOf(req).rn ?? 'def';
      await saveProfile(ctx, rn, body, req.log);
      const view = ctx.profiles.view(rn);
      return sendJson(res, req, 'ProfileC', { Result: { RC: 'OK' }, Profile: typedProfile(view) }, { Result: { RC: 'OK' }, Profile: view });
    }),
  );

  app.get('/state', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      await ctx.registers.catchUp();
      const scope = scopeOf(req);
      const record = scope ? stateRecord(ctx, visibleTo(ctx, scope)) : stateRecord(ctx);
      // JSON: the record's fields at the top level, as typed POS clients deserialize it; XML: the State element
      if (formatOf(req) === 'json') return res.code(200).type(contentType('json')).send(JSON.stringify(typedState(record)));
      return sendDoc(res, formatOf(req), 'State', record);
    }),
  );
}

/** The profile body: flat JSON `{"Badge": ..., "RN_TT": true}` (or under "Profile"), or XML `<Profile Badge="..."/>`. */
function decodeProfile(text: string, contentTypeHeader: string | undefined): Obj {
  if (bodyFormat(contentTypeHeader, text) === 'xml') return decodeBody(text, contentTypeHeader, 'Profile').body;
  if (text.trim() === '') throw new FiscalError('#EMPTY_BODY', { expected: 'a profile {"Badge": ...}' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new FiscalError('#MALFORMED', { format: 'JSON', detail: e instanceof Error ? e.message : String(e) });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new FiscalError('#MALFORMED', { format: 'JSON', detail: 'expected an object such as {"Badge": "..."}' });
  }
  let fields = parsed as Record<string, unknown>;
  const inner = fields.Profile;
  if (Object.keys(fields).length === 1 && typeof inner === 'object' && inner !== null && !Array.isArray(inner)) fields = inner as Record<string, unknown>;
  const out: Obj = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === null || v === undefined) continue;
    if (typeof v === 'object') throw new FiscalError('#INVALID_TYPE', { field: k, expected: 'text', value: JSON.stringify(v) });
    out[k] = typeof v === 'boolean' ? (v ? 'true' : 'false') : String(v);
  }
  return out;
}
