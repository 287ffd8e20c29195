/**
 * What a cloud access token may touch: its TaxId and its terminal TL/TT.
 *
 * - Transactions (/register, /restart, /register/void, /register/void/last): the TL/TT of the transaction
 *   after the pipeline's defaults (TT 1, `TL/TT` split) must be the token's, an ESR.TaxId the token's; in
 *   Multi POS the register must be the token's `TaxId$TL_TT`; a register whose profile names another TaxId
 *   is refused. Refusals are `#OUT_OF_SCOPE` (RC BAD, HTTP 403) before anything is registered.
 * - Other routes: a query TaxId, TL or TT other than the token's is refused; the journal reads by terminal
 *   (/find, /retrieve, /tra, /last, /jou/reprintcnt) and the voids are pinned to the token's TL/TT.
 */
import { FiscalError } from '../../shared/errors.js';
import { type Doc, isObj, str } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { identityOf } from '../esr/normalize.js';
import type { BuiltRequest } from '../pipeline.js';
import { registerNumber, rnOfQuery } from '../register-number.js';
import type { CachedResponse, Register } from '../registers.js';
import type { RecordType } from '../journal/types.js';
import { answerOf, sealedOf } from '../record-answer.js';
import type { TokenScope } from './tokens.js';

export function scopeText(scope: TokenScope): string {
  return `TaxId ${scope.taxId}, TL ${scope.tl || '(none)'}, TT ${scope.tt}`;
}

function outOfScope(scope: TokenScope, detail: string): FiscalError {
  return new FiscalError('#OUT_OF_SCOPE', { scope: scopeText(scope), detail });
}

/** The token's own register in Multi POS, `TaxId$TL_TT` (undefined when its TL/TT cannot name one). */
function ownRegister(scope: TokenScope): string | undefined {
  try {
    return registerNumber(scope.taxId, scope.tl, scope.tt);
  } catch {
    return undefined;
  }
}

/** The register may be used with this token: in Multi POS only its own; never one of another TaxId. */
export function checkRegisterScope(ctx: ServiceContext, scope: TokenScope, rn: string): void {
  if (ctx.profiles.multiPos()) {
    const own = ownRegister(scope);
    if (rn !== own) throw outOfScope(scope, `register ${rn} is not its register ${own ?? '(none)'}; nothing was done`);
    // the register number names the TaxId; a profile of the register's own may name it too
    const taxId = ctx.profiles.own(rn).TaxId;
    if (taxId && taxId !== scope.taxId) throw outOfScope(scope, `register ${rn} belongs to TaxId ${taxId}; nothing was done`);
    return;
  }
  const taxId = ctx.profiles.effective(rn).TaxId;
  if (taxId && taxId !== scope.taxId) throw outOfScope(scope, `register ${rn} belongs to TaxId ${taxId}; nothing was done`);
}

/**
 * The registers a token may see listed (/state): in Multi POS its own, else those whose profile names its
 * TaxId. Stricter than checkRegisterScope, which lets a register without any TaxId be used: a list names
 * registers the tenant did not ask for.
 */
export function visibleTo(ctx: ServiceContext, scope: TokenScope): (rn: string) => boolean {
  const own = ownRegister(scope);
  if (ctx.profiles.multiPos()) return (rn) => rn === own;
  return (rn) => ctx.profiles.effective(rn).TaxId === scope.taxId;
}

/** Called by the pipeline before anything is created or registered. */
export function checkTransactionScope(ctx: ServiceContext, scope: TokenScope, rn: string, doc: Doc): void {
  checkRegisterScope(ctx, scope, rn);
  if (!['Tra', 'TraS', 'TraU', 'TraV'].includes(doc.root)) return;
  const esr = isObj(doc.body.ESR) ? doc.body.ESR : {};
  const taxId = str(esr, 'TaxId');
  if (taxId !== undefined && taxId !== '' && taxId !== scope.taxId) throw outOfScope(scope, `ESR.TaxId ${taxId} is another company; nothing was registered`);
  const { tl, tt } = identityOf(esr);
  if (tl !== scope.tl || tt !== scope.tt) {
    throw outOfScope(scope, `the transaction's TL/TT ${tl || '(none)'}/${tt} is another terminal; nothing was registered`);
  }
}

/** Routes that read or act by terminal: the token's TaxId, TL and TT are put into their query. */
const TERMINAL_ROUTES = new Set(['/find', '/retrieve', '/tra', '/last', '/jou/reprintcnt', '/register/void', '/register/void/last']);
/** Routes whose register comes from the transaction: the token's TaxId stands in for a missing one. */
const TRANSACTION_ROUTES = new Set(['/register', '/restart']);

/**
 * Checks a request's query against the token and pins the terminal routes to it (the query object is
 * changed in place, before the route reads it).
 */
export function applyQueryScope(ctx: ServiceContext, route: string, query: Record<string, string>, scope: TokenScope): void {
  const named: Array<[string, string | undefined, string]> = [
    ['TaxId', query.taxid, scope.taxId],
    ['TL', query.tl, scope.tl],
    ['TT', query.tt, scope.tt],
  ];
  for (const [name, given, own] of named) {
    if (given !== undefined && given !== own) throw outOfScope(scope, `${name} ${given || '(none)'} in the query is not the token's; nothing was done`);
  }
  if (TERMINAL_ROUTES.has(route)) {
    query.taxid = scope.taxId;
    query.tl = scope.tl;
    query.tt = scope.tt;
  } else if (TRANSACTION_ROUTES.has(route)) {
    query.taxid = scope.taxId;
  }
  let rn: string;
  try {
    rn = rnOfQuery(ctx, query);
  } catch {
    // no register named (Multi POS without rn): the route answers that itself
    return;
  }
  checkRegisterScope(ctx, scope, rn);
}

/**
 * GET /last with a token in Single POS: the register's last record may be another terminal's, so the
 * answer is the last record of the token's TL/TT. Undefined when no restriction is needed (Multi POS: the
 * register is the terminal).
 */
export async function lastInScope(ctx: ServiceContext, reg: Register, type: RecordType | 'any', scope: TokenScope | undefined): Promise<CachedResponse | undefined> {
  if (!scope || ctx.profiles.multiPos()) return undefined;
  for await (const r of ctx.store.find(reg.state.rid, { ...(type === 'any' ? {} : { type }), tl: scope.tl, tt: scope.tt, sort: 'desc' }, 1)) {
    return answerOf(sealedOf(r));
  }
  throw new FiscalError('#NOT_FOUND', { value: `last ${type === 'any' ? 'record' : type} of ${scopeText(scope)} in ${reg.state.rn}` });
}

/**
 * /register/void and /register/void/last with a token: the void is registered under the token's TL/TT
 * (the "local" terminal of a cloud POS; in Single POS the register's Cfg would name only one), and the
 * last transaction voided by /register/void/last must be one of the token's terminal.
 */
export function scopedVoid(build: (given: Doc | undefined) => Promise<BuiltRequest>, scope: TokenScope | undefined, last: boolean): (given: Doc | undefined) => Promise<BuiltRequest> {
  if (!scope) return build;
  return async (given) => {
    const built = await build(given);
    const esr = isObj(built.doc.body.ESR) ? built.doc.body.ESR : undefined;
    if (!esr) return built;
    if (last && ((str(esr, 'RTL') ?? '') !== scope.tl || (str(esr, 'RTT') ?? '1') !== scope.tt)) {
      throw outOfScope(scope, `the last transaction of register ${built.rn} is of another terminal; nothing was voided`);
    }
    if (scope.tl) esr.TL = scope.tl;
    else delete esr.TL;
    esr.TT = scope.tt;
    return built;
  };
}
