/**
 * Deactivating companies and locations (at once, or on 31 December 23:59:59 UTC of `deactivateAfterYear`),
 * with everything under them: locations, and registers (state Deactivated; for a location, the registers whose
 * last TL is its locationIdentification). `forceSubDeactivation` is accepted: no fiscal units with a notice
 * period exist in this portal, so everything ends at the same moment either way.
 */
import { Issues, PortalError } from '../envelope.js';
import type { PortalContext } from '../context.js';
import type { Caller } from '../permissions.js';
import type { EntityKind } from '../store/types.js';
import { requireImmediateCascadeRights, requireScheduledCascadeRights } from './cascade-rights.js';
import { entityWith } from './entity-access.js';

/** The instant a deactivation "after" that year takes effect. */
export function endOfYear(year: number): string {
  return `${String(year).padStart(4, '0')}-12-31T23:59:59.000Z`;
}

export async function deactivateNow(ctx: PortalContext, id: number): Promise<{ entities: number[]; registers: string[] }> {
  const now = ctx.clock.now();
  const changed = await ctx.store.deactivateSubtree(id, 'Deactivated', now);
  return changed;
}

export interface DeactivateOptions {
  deactivateAfterYear?: number;
  forceSubDeactivation?: boolean;
}

export async function deactivateEntity(ctx: PortalContext, caller: Caller, kind: EntityKind, id: number, options: DeactivateOptions): Promise<void> {
  const e = await entityWith(ctx, caller, id, kind, 'ManageCompany');
  const now = ctx.clock.now();
  if (options.deactivateAfterYear !== undefined) {
    await requireScheduledCascadeRights(ctx, caller, e);
    const thisYear = now.getUTCFullYear();
    const issues = new Issues();
    if (options.deactivateAfterYear < thisYear) issues.add('deactivateAfterYear', 'yearPast', { year: thisYear });
    issues.throwIfAny();
    if (e.state === 'Deactivated') throw new PortalError('INVALID_STATE', { detail: `${kind} ${id} is already deactivated` });
    await ctx.store.setDeactivateAfter(id, endOfYear(options.deactivateAfterYear), now);
    return;
  }
  // at once; a second deactivation of a deactivated entity changes nothing and succeeds
  if (e.state === 'Deactivated') return;
  await requireImmediateCascadeRights(ctx, caller, e);
  await deactivateNow(ctx, id);
}

/** Runs what is due: scheduled deactivations (with their cascade) and scheduled register discharges. */
export async function runDue(ctx: PortalContext): Promise<{ entities: number[]; registers: string[] }> {
  const now = ctx.clock.now();
  const entities: number[] = [];
  const registers: string[] = [];
  for (const id of await ctx.store.dueDeactivations(now)) {
    const changed = await ctx.store.deactivateSubtree(id, 'Deactivated', now);
    entities.push(...changed.entities);
    registers.push(...changed.registers);
  }
  for (const rn of await ctx.store.dueDischarges(now)) {
    const r = await ctx.store.setRegisterState(rn, 'Discharged', null, now);
    if (r) registers.push(rn);
  }
  return { entities, registers };
}
