/**
 * Cloud API keys of a company:
 * - API clients: POST /api/v1/companies/{companyId}/apiKeys (ManageCompany; the secret is answered only here),
 *   GET /api/v1/companies/{companyId}/apiKeys (ReadCompany; never a secret),
 *   DELETE /api/v1/companies/{companyId}/apiKeys/{apiKey} (ManageCompany; revokes, the key stays listed).
 * - Register service instances: POST /api/v1/recorder/apiKeys/verify (`Authorization: Bearer <instance credential>`).
 */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { callerOf } from '../auth/hook.js';
import type { PortalContext } from '../context.js';
import { okEnvelope } from '../envelope.js';
import { companyApiKeyView, createCompanyApiKey, listCompanyApiKeys, revokeCompanyApiKey, verifyCompanyApiKey } from '../services/company-api-keys.js';
import { instanceOf } from '../services/recorder.js';
import { Id, idParams, withEnvelope } from '../validation/schemas.js';
import { errorResponses, noBodyIsEmptyObject } from './responses.js';

const nullableStr = Type.Unsafe<string | null>({ type: ['string', 'null'] });

const ApiKeyOut = Type.Object({
  apiKey: Type.String({ description: 'the key id, `ck_` and 16 characters; the client_id at POST /auth/token of a cloud instance' }),
  companyId: Type.Integer(),
  name: nullableStr,
  creationTimestamp: Type.String({ format: 'date-time' }),
  revocationTimestamp: Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' }),
  revoked: Type.Boolean(),
});

const ApiKeyCreate = Type.Object({
  name: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 200, description: 'a label, e.g. the cloud instance or POS system' })),
});

const KeyParams = Type.Object({ companyId: Id, apiKey: Type.String({ minLength: 1, maxLength: 100 }) });

const VerifyBody = Type.Object({
  apiKey: Type.String({ minLength: 1, maxLength: 100 }),
  apiSecret: Type.Optional(Type.String({ maxLength: 1000, description: 'absent: only whether the key is active (a refresh)' })),
});

const VerifyOut = withEnvelope({
  valid: Type.Boolean(),
  taxId: nullableStr,
  companyId: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
  revoked: Type.Boolean(),
});

export function companyApiKeyRoutes(app: FastifyInstance, ctx: PortalContext): void {
  app.post('/api/v1/companies/:companyId/apiKeys', {
    preValidation: noBodyIsEmptyObject,
    schema: {
      tags: ['API keys'], operationId: 'create_company_api_key', summary: 'Create a cloud API key of a company',
      description: 'Permission: ManageCompany. Answers the key and its secret; the secret is shown only in this answer (the portal keeps its SHA-256 only).',
      params: idParams('companyId'), body: ApiKeyCreate,
      response: { 200: withEnvelope({ companyApiKey: ApiKeyOut, apiSecret: Type.String() }), ...errorResponses },
    },
  }, async (req) => {
    const { key, secret } = await createCompanyApiKey(ctx, callerOf(req), (req.params as { companyId: number }).companyId, (req.body as { name?: string | null }).name);
    return okEnvelope({ companyApiKey: companyApiKeyView(key), apiSecret: secret });
  });

  app.get('/api/v1/companies/:companyId/apiKeys', {
    schema: {
      tags: ['API keys'], operationId: 'list_company_api_keys', summary: 'List the cloud API keys of a company',
      description: 'Permission: ReadCompany. Revoked keys too, oldest first; never a secret.',
      params: idParams('companyId'), response: { 200: withEnvelope({ companyApiKeys: Type.Array(ApiKeyOut) }), ...errorResponses },
    },
  }, async (req) => {
    const keys = await listCompanyApiKeys(ctx, callerOf(req), (req.params as { companyId: number }).companyId);
    return okEnvelope({ companyApiKeys: keys.map(companyApiKeyView) });
  });

  app.delete('/api/v1/companies/:companyId/apiKeys/:apiKey', {
    schema: {
      tags: ['API keys'], operationId: 'revoke_company_api_key', summary: 'Revoke a cloud API key of a company',
      description: 'Permission: ManageCompany. The key stays listed as revoked; cloud instances refuse it within their cache time (60 s by default).',
      params: KeyParams, response: { 200: withEnvelope({ companyApiKey: ApiKeyOut }), ...errorResponses },
    },
  }, async (req) => {
    const p = req.params as { companyId: number; apiKey: string };
    const key = await revokeCompanyApiKey(ctx, callerOf(req), p.companyId, p.apiKey);
    return okEnvelope({ companyApiKey: companyApiKeyView(key) });
  });

  app.post('/api/v1/recorder/apiKeys/verify', {
    config: { publicRoute: true },
    schema: {
      tags: ['Recorder'], operationId: 'recorder_verify_api_key', summary: 'Check a cloud API key for the calling instance',
      description: 'Bearer: the instance credential. Valid only when the key is active and belongs to the instance\'s company (company badge) or to a company under its organization (organization badge). An unknown key, a wrong secret and a key of another company answer the same: valid false.',
      body: VerifyBody, response: { 200: VerifyOut, ...errorResponses },
    },
  }, async (req) => {
    const instance = await instanceOf(ctx, req.headers.authorization);
    const b = req.body as { apiKey: string; apiSecret?: string };
    return okEnvelope({ ...(await verifyCompanyApiKey(ctx, instance, b.apiKey, b.apiSecret)) });
  });
}
