/**
 * TLS client certificates (issue 8, point 5): when `<data>/cer/client` exists, a request without a
 * trusted client certificate is refused. Trust by whitelist (.pem .crt .cer .der in that folder) or by CA
 * (`ca*.pem`, uploaded by POST /cer/ca).
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';

/** Registers the onRequest hook that refuses requests without a trusted client certificate. */
export function clientCertificateHook(_app: FastifyInstance, _ctx: ServiceContext): void {
  // not built yet
}
