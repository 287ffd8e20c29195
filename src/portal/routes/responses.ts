/** The failure answers every route documents (all in the envelope), and a hook for routes whose body is optional. */
import type { FastifyRequest } from 'fastify';
import { EnvelopeOnly } from '../validation/schemas.js';

/** preValidation of searches: no body is an empty search (every filter has a default). */
export async function noBodyIsEmptyObject(req: FastifyRequest): Promise<void> {
  if (req.body === undefined) req.body = {};
}

export const errorResponses = {
  400: { ...EnvelopeOnly, description: 'validation failed (validationErrors per field)' },
  401: { ...EnvelopeOnly, description: 'no or a bad bearer token' },
  403: { ...EnvelopeOnly, description: 'the caller sees the entity (a grant covers it) but lacks the permission' },
  404: { ...EnvelopeOnly, description: 'not found: an id never used and one outside every grant of the caller are answered alike' },
  409: { ...EnvelopeOnly, description: 'conflict with existing data or the state' },
  413: { ...EnvelopeOnly, description: 'the body is larger than 1 MiB' },
  415: { ...EnvelopeOnly, description: 'the body is not JSON' },
  503: { ...EnvelopeOnly, description: 'the database is not available; try again later' },
};
