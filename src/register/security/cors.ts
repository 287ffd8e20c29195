/** CORS headers from the profile attributes HttpServer_AllowOrigin / HttpServer_AllowCredentials (issue 8, point 8). */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';

export function corsHook(_app: FastifyInstance, _ctx: ServiceContext): void {
  // not built yet
}
