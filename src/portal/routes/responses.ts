/** The failure answers every route documents (all in the envelope). */
import { EnvelopeOnly } from '../validation/schemas.js';

export const errorResponses = {
  400: { ...EnvelopeOnly, description: 'validation failed (validationErrors per field)' },
  401: { ...EnvelopeOnly, description: 'no or a bad bearer token' },
  403: { ...EnvelopeOnly, description: 'the permission is missing' },
  404: { ...EnvelopeOnly, description: 'not found' },
  409: { ...EnvelopeOnly, description: 'conflict with existing data or the state' },
};
