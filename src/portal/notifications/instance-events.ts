/**
 * Events a register service instance reports (POST /api/v1/recorder/events, Bearer instance credential), in the
 * order it saw them: a failure or a nearly full disk raises (or keeps) the open notification of its register, a
 * recovery closes it, TSE_ACTIVATED is a notice of its own each time.
 */
import type { PortalContext } from '../context.js';
import { CLEARS, INSTANCE_EVENT_CODES, type InstanceEventCode, type NotificationCode } from './events.js';
import { clearNotification, raiseNotification } from './lifecycle.js';

export interface ReportedEvent {
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
  /** reports of a condition already open (nothing new) */
  repeated: number;
  /** notifications closed by a recovery */
  closed: number;
}

export async function reportEvents(ctx: PortalContext, instance: { registerNumber: string; companyId: number }, events: readonly ReportedEvent[]): Promise<EventsOutcome> {
  const outcome: EventsOutcome = { raised: 0, repeated: 0, closed: 0 };
  for (const e of events) {
    const cleared = CLEARS[e.eventCode];
    if (cleared) {
      if (await clearNotification(ctx, instance.registerNumber, cleared)) outcome.closed += 1;
      continue;
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
  return outcome;
}
