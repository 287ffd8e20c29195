/**
 * Cloud mode (issue 8, point 1): every request but POST /auth/token needs `Authorization: Bearer`, and the
 * token's TaxId/TL/TT scope limits what it may register or read.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';

export function cloudTokenHook(_app: FastifyInstance, _ctx: ServiceContext): void {
  // not built yet
}
