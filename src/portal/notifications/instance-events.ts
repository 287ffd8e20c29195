/**
 * Events a register service instance reports (POST /api/v1/recorder/events, Bearer instance credential), in the
 * order it saw them: a failure or a nearly full disk raises (or keeps) the open notification of its register, a
 * recovery closes it, TSE_ACTIVATED is a notice of its own each time. An event with an `id` (the instance's queue
 * id) is processed once per register: sent again, it counts as `repeated` and raises, closes and mails nothing
 * (the ids are kept EVENT_IDS_KEPT_MS, pruned by the scheduler).
 */
import type { PortalContext } from '../context.js';
import { CLEARS, INSTANCE_EVENT_CODES, type InstanceEventCode, type NotificationCode } from './events.js';
import { clearNotification, raiseNotification } from './lifecycle.js';
export { EVENT_IDS_KEPT_MS } from './event-ids.js';

export interface ReportedEvent {
  /** the instance's id of the event (its queue's): an event whose id the portal has processed is not processed again */
  id?: string;
  eventCode: InstanceEventCode;
  /** when the instance saw it (date-time) */
  at: string;
  detail?: string;
}

/** JSON schema of the route's body: 1 to 100 events; an unknown code, a bad time or another field is 400. */
export const EventsBody = {
  type: 'object',
  required: ['events'],
  additionalProperties: false,
  properties: {
    events: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: {
        type: 'object',
        required: ['eventCode', 'at'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^[A-Za-z0-9_-]{8,64}$' },
          eventCode: { type: 'string', enum: [...INSTANCE_EVENT_CODES] },
          at: { type: 'string', format: 'date-time', maxLength: 40 },
          detail: { type: 'string', maxLength: 1000 },
        },
      },
    },
  },
} as const;

export interface EventsOutcome {
  /** notifications newly raised */
  raised: number;
  /** reports of a condition already open, reopened within the reopen period, or events processed before (by id) */
  repeated: number;
  /** notifications closed by a recovery */
  closed: number;
}


export async function reportEvents(ctx: PortalContext, instance: { registerNumber: string; companyId: number }, events: readonly ReportedEvent[]): Promise<EventsOutcome> {
  const outcome: EventsOutcome = { raised: 0, repeated: 0, closed: 0 };
  for (const e of events) {
    if (e.id !== undefined && !(await ctx.store.claimEvent(instance.registerNumber, e.id, ctx.clock.now().toISOString()))) {
      // sent again (a lost answer, a retry after a partial failure, two processes): processed already
      outcome.repeated += 1;
      continue;
    }
    try {
      await reportEvent(ctx, instance, e, outcome);
    } catch (err) {
      // not processed: a resend of the event is processed again
      if (e.id !== undefined) await ctx.store.releaseEvent(instance.registerNumber, e.id).catch(() => undefined);
      throw err;
    }
  }
  return outcome;
}

async function reportEvent(ctx: PortalContext, instance: { registerNumber: string; companyId: number }, e: ReportedEvent, outcome: EventsOutcome): Promise<void> {
  const cleared = CLEARS[e.eventCode];
  if (cleared) {
    if (await clearNotification(ctx, instance.registerNumber, cleared)) outcome.closed += 1;
    return;
  }
  const at = new Date(e.at);
  const { created } = await raiseNotification(ctx, {
    registerNumber: instance.registerNumber,
    companyId: instance.companyId,
    code: e.eventCode as NotificationCode,
    ...(Number.isFinite(at.getTime()) ? { at } : {}),
    detail: e.detail ?? null,
  });
  if (created) outcome.raised += 1;
  else outcome.repeated += 1;
}
