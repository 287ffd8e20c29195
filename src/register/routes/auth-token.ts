/** POST /auth/token: access and refresh tokens for cloud POS (issue 8, point 1). */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';

export function authTokenRoutes(_app: FastifyInstance, _ctx: ServiceContext): void {
  // not built yet
}
