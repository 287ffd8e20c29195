/** POST /cer/ssl, POST /cer/ca, GET /cer/<serial>, GET /authorization (issue 8, points 4-6). */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';

export function certificateRoutes(_app: FastifyInstance, _ctx: ServiceContext): void {
  // not built yet
}
