/**
 * The profile attribute Tra_DH (a boolean: `Tra_DH`, `Tra_DH=true`; `false`/`0`/`no`/`off` is off): the /register
 * answer of a receipt (TraC) carries its document handle in `Fis.DH` (JSON `"Fis":{"DH":"..."}`, XML
 * `<Fis DH="..."/>`), the same handle GET /recorder/lastdh names and the portal's receipt page `/r/<DH>` shows.
 *
 * Online mode only: the handle is added when the register is activated at the portal (the store setting
 * `recorder:activation`, for the registers of a Multi POS instance `recorder:activation:<RN>`, exists): its
 * handle is then bound to it at the portal, so that nobody else can bind it first and show another receipt
 * under it. Before that the answer carries no handle (no warning either: Tra_DH may be set in the profile before
 * the badge is entered; a new Multi POS register is activated by the recorder within a second of its first record).
 * Not journaled: the handle is made from the journal record (its signature) on every answer, also for a
 * #DUPLICATE answer of the same record.
 */
import type { Obj } from '../codec/index.js';
import { isObj } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import type { CachedResponse } from '../registers.js';
import { documentHandle } from '../render/qr/document-handle.js';
import type { Sealed } from '../record-answer.js';
import { activationKey } from './keys.js';

/** Registers known to be activated, per store (an activation is never undone locally: the badge is locked). */
const activated = new WeakMap<object, Set<string>>();

/** Whether the register is activated at the portal (online mode). */
export async function isActivated(ctx: Pick<ServiceContext, 'store'>, rn = 'def'): Promise<boolean> {
  const known = activated.get(ctx.store) ?? new Set<string>();
  if (known.has(rn)) return true;
  const text = await ctx.store.getSetting(activationKey(rn));
  if (text === undefined || text === '') return false;
  known.add(rn);
  activated.set(ctx.store, known);
  return true;
}

/** The answer with Fis.DH added, when the register's profile has Tra_DH, the answer is a TraC and the instance is online. */
export async function withDocumentHandle(ctx: Pick<ServiceContext, 'store' | 'signer'>, rn: string, traDh: boolean, answer: CachedResponse, sealed: Sealed): Promise<CachedResponse> {
  if (!traDh || answer.root !== 'TraC') return answer;
  if (!(await isActivated(ctx, rn))) return answer;
  const dh = documentHandle(ctx.signer.keyId, rn, sealed);
  const fis: Obj = isObj(answer.body.Fis) ? answer.body.Fis : {};
  return { ...answer, body: { ...answer.body, Fis: { ...fis, DH: dh.handle } } };
}
