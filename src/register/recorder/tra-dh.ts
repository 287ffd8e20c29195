/**
 * The profile attribute Tra_DH (a boolean: `Tra_DH`, `Tra_DH=true`; `false`/`0`/`no`/`off` is off): the /register
 * answer of a receipt (TraC) carries its document handle in `Fis.DH` (JSON `"Fis":{"DH":"..."}`, XML
 * `<Fis DH="..."/>`), the same handle GET /recorder/lastdh names and the portal's receipt page `/r/<DH>` shows.
 *
 * Online mode only: the handle is added when the instance is activated at the portal (the store setting
 * `recorder:activation` exists). Before the activation the portal cannot show the receipt, so the answer carries
 * no handle (no warning either: Tra_DH may be set in the profile before the badge is entered).
 * Not journaled: the handle is made from the journal record (its signature) on every answer, also for a
 * #DUPLICATE answer of the same record.
 */
import type { Obj } from '../codec/index.js';
import { isObj } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import type { CachedResponse } from '../registers.js';
import { documentHandle } from '../render/qr/document-handle.js';
import type { Sealed } from '../respond.js';
import { ACTIVATION_KEY } from './recorder.js';

/** Contexts known to be activated (an activation is never undone locally: the badge is locked). */
const activated = new WeakSet<object>();

/** Whether the instance is activated at the portal (online mode). */
export async function isActivated(ctx: Pick<ServiceContext, 'store'>): Promise<boolean> {
  if (activated.has(ctx.store)) return true;
  const text = await ctx.store.getSetting(ACTIVATION_KEY);
  if (text === undefined || text === '') return false;
  activated.add(ctx.store);
  return true;
}

/** The answer with Fis.DH added, when the register's profile has Tra_DH, the answer is a TraC and the instance is online. */
export async function withDocumentHandle(ctx: Pick<ServiceContext, 'store' | 'signer'>, rn: string, traDh: boolean, answer: CachedResponse, sealed: Sealed): Promise<CachedResponse> {
  if (!traDh || answer.root !== 'TraC') return answer;
  if (!(await isActivated(ctx))) return answer;
  const dh = documentHandle(ctx.signer.keyId, rn, sealed);
  const fis: Obj = isObj(answer.body.Fis) ? answer.body.Fis : {};
  return { ...answer, body: { ...answer.body, Fis: { ...fis, DH: dh.handle } } };
}
