/**
 * The recorder's routes (used by register service instances, not by API clients; no bearer JWT of a client):
 * POST /api/v1/recorder/activate (the badge authenticates) and POST /api/v1/recorder/archive
 * (`Authorization: Bearer <instance credential>` from the activation).
 */
import type { FastifyInstance } from 'fastify';
import type { PortalContext } from '../context.js';
import { okEnvelope } from '../envelope.js';
import { type ActivationRequest, type IncomingRecord, activate, archive, instanceOf } from '../services/recorder.js';
import { errorResponses } from './responses.js';
import { EventsBody, type ReportedEvent, reportEvents } from '../notifications/instance-events.js';

const ActivateBody = {
  type: 'object',
  required: ['badge'],
  properties: {
    badge: { type: 'string', minLength: 1, maxLength: 2000 },
    registerNumber: { type: 'string', minLength: 1, maxLength: 500 },
    taxId: { type: 'string', maxLength: 100 },
    tl: { type: 'string', maxLength: 1000 },
    tt: { type: 'string', maxLength: 1000 },
    versionNumber: { type: 'string', maxLength: 100 },
    isCloudEFR: { type: 'boolean' },
    countryCode: { type: 'string', maxLength: 2 },
    registerHandle: { type: 'string', pattern: '^[A-Z2-7]{16}$' },
  },
} as const;

const ArchiveBody = {
  type: 'object',
  required: ['records'],
  properties: {
    records: {
      type: 'array',
      minItems: 1,
      maxItems: 500,
      items: {
        type: 'object',
        required: ['sq', 'data', 'hash'],
        properties: {
          sq: { type: 'integer', minimum: 1 },
          data: { type: 'string', minLength: 2 },
          hash: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
          d: { type: 'string', maxLength: 64 },
          th: { type: 'string', pattern: '^[A-Z2-7]{5}$' },
          sig: { type: 'string', maxLength: 4096, pattern: '^[A-Za-z0-9+/]*={0,2}$' },
        },
      },
    },
  },
} as const;

export function recorderRoutes(app: FastifyInstance, ctx: PortalContext): void {
  app.post('/api/v1/recorder/activate', {
    config: { publicRoute: true },
    schema: { tags: ['Recorder'], operationId: 'recorder_activate', summary: 'Activate a register service instance by badge', description: 'Called by the register service when its profile is saved with a badge. Answers the register number, the central Cfg and the instance credential.', body: ActivateBody, response: errorResponses },
  }, async (req) => {
    const a = await activate(ctx, req.body as ActivationRequest);
    return okEnvelope({ registerNumber: a.registerNumber, companyId: a.companyId, state: a.state, tl: a.tl, tt: a.tt, cfg: a.cfg, token: a.token });
  });

  app.post('/api/v1/recorder/archive', {
    config: { publicRoute: true },
    bodyLimit: 2 * 1024 * 1024,
    schema: { tags: ['Recorder'], operationId: 'recorder_archive', summary: 'Archive journal records of the activated register', description: 'Bearer: the instance credential. Records in SQ order; a record sent again is accepted, a different record for a stored SQ is 409.', body: ArchiveBody, response: errorResponses },
  }, async (req) => {
    const instance = await instanceOf(ctx, req.headers.authorization);
    const outcome = await archive(ctx, instance.registerNumber, (req.body as { records: IncomingRecord[] }).records);
    return okEnvelope({ registerNumber: instance.registerNumber, ...outcome });
  });

  app.post('/api/v1/recorder/events', {
    config: { publicRoute: true },
    schema: { tags: ['Recorder'], operationId: 'recorder_events', summary: 'Report events of the activated register (TSE failure, TSE activated, disk nearly full, ...)', description: 'Bearer: the instance credential. Events in the order seen; each raises, repeats or closes a notification of the register (mailed to the contacts of the matching type).', body: EventsBody, response: errorResponses },
  }, async (req) => {
    const instance = await instanceOf(ctx, req.headers.authorization);
    const outcome = await reportEvents(ctx, instance, (req.body as { events: ReportedEvent[] }).events);
    return okEnvelope({ registerNumber: instance.registerNumber, ...outcome });
  });
}
