/**
 * Organizations, companies and locations:
 * POST /api/v1/{kind}s, PUT /api/v1/{kind}s/{id}, GET /api/v1/{kind}s/{id}, POST /api/v1/{kind}s/search,
 * POST /api/v1/{companies|locations}/{id}/deactivate?deactivateAfterYear=&forceSubDeactivation=.
 */
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import { callerOf } from '../auth/hook.js';
import type { PortalContext } from '../context.js';
import { okEnvelope } from '../envelope.js';
import { deactivateEntity, type DeactivateOptions } from '../services/deactivation.js';
import { type EntityBody, createEntity, getEntity, updateEntity } from '../services/entities.js';
import { type SearchBody, searchEntities } from '../services/search.js';
import { companyView, locationView, organizationView } from '../services/views.js';
import type { Entity, EntityKind } from '../store/types.js';
import {
  CompanyCreate,
  CompanyOut,
  CompanyUpdate,
  DeactivateQuery,
  EntitySearchBody,
  EnvelopeOnly,
  LocationCreate,
  LocationOut,
  LocationUpdate,
  OrganizationCreate,
  OrganizationOut,
  OrganizationUpdate,
  idParams,
  searchAnswer,
  withEnvelope,
} from '../validation/schemas.js';
import { errorResponses, noBodyIsEmptyObject } from './responses.js';

interface KindRoutes {
  kind: EntityKind;
  plural: string;
  param: string;
  tag: string;
  create: TSchema;
  update: TSchema;
  out: TSchema;
  answer: (e: Entity) => Record<string, unknown>;
  deactivate: boolean;
}

const KINDS: KindRoutes[] = [
  { kind: 'organization', plural: 'organizations', param: 'organizationId', tag: 'Organizations', create: OrganizationCreate, update: OrganizationUpdate, out: OrganizationOut, answer: (e) => ({ organization: organizationView(e) }), deactivate: false },
  {
    kind: 'company',
    plural: 'companies',
    param: 'companyId',
    tag: 'Companies',
    create: CompanyCreate,
    update: CompanyUpdate,
    out: CompanyOut,
    answer: (e) => ({ company: companyView(e), companyCountryProperties: e.countryProperties }),
    deactivate: true,
  },
  { kind: 'location', plural: 'locations', param: 'locationId', tag: 'Locations', create: LocationCreate, update: LocationUpdate, out: LocationOut, answer: (e) => ({ location: locationView(e) }), deactivate: true },
];

export function entityRoutes(app: FastifyInstance, ctx: PortalContext): void {
  for (const k of KINDS) {
    const one = k.kind === 'company' ? { company: k.out, companyCountryProperties: CompanyOut.properties.countryProperties as TSchema } : { [k.kind]: k.out };
    const ok = withEnvelope(one);
    const permission = k.kind === 'organization' ? 'ManageCompany on the parent organization' : k.kind === 'company' ? 'ManageCompany on the parent organization' : 'ManageCompany on the parent company';

    app.post(`/api/v1/${k.plural}`, { schema: { tags: [k.tag], operationId: `create_${k.kind}`, summary: `Create ${k.kind === 'organization' ? 'an' : 'a'} ${k.kind}`, description: `Permission: ${permission}.`, body: k.create, response: { 200: ok, ...errorResponses } } }, async (req) => {
      const e = await createEntity(ctx, callerOf(req), k.kind, req.body as EntityBody);
      return okEnvelope(k.answer(e));
    });

    app.put(`/api/v1/${k.plural}/:${k.param}`, { schema: { tags: [k.tag], operationId: `update_${k.kind}`, summary: `Update ${k.kind === 'organization' ? 'an' : 'a'} ${k.kind} (full update)`, description: 'Permission: ManageCompany. Send all current values: absent optional fields are cleared (state and taxId absent: unchanged).', params: idParams(k.param), body: k.update, response: { 200: ok, ...errorResponses } } }, async (req) => {
      const id = (req.params as Record<string, number>)[k.param] as number;
      const e = await updateEntity(ctx, callerOf(req), k.kind, id, req.body as EntityBody);
      return okEnvelope(k.answer(e));
    });

    app.get(`/api/v1/${k.plural}/:${k.param}`, { schema: { tags: [k.tag], operationId: `get_${k.kind}`, summary: `Get ${k.kind === 'organization' ? 'an' : 'a'} ${k.kind}`, description: 'Permission: ReadCompany.', params: idParams(k.param), response: { 200: ok, ...errorResponses } } }, async (req) => {
      const id = (req.params as Record<string, number>)[k.param] as number;
      return okEnvelope(k.answer(await getEntity(ctx, callerOf(req), id, k.kind)));
    });

    app.post(`/api/v1/${k.plural}/search`, { preValidation: noBodyIsEmptyObject, schema: { tags: [k.tag], operationId: `search_${k.plural}`, summary: `Search ${k.plural}`, description: 'Returns only what the caller may read (ReadCompany). limit 0 to 250 (default 100; 0: no limit), offset >= 0.', body: EntitySearchBody, response: { 200: searchAnswer(k.out), ...errorResponses } } }, async (req) => {
      const found = await searchEntities(ctx, callerOf(req), k.kind, (req.body ?? {}) as SearchBody);
      return okEnvelope({ currentCount: found.currentCount, totalCount: found.totalCount, foundItems: found.foundItems.map((e) => Object.values(k.answer(e))[0]) });
    });

    if (k.deactivate) {
      app.post(`/api/v1/${k.plural}/:${k.param}/deactivate`, { schema: { tags: [k.tag], operationId: `deactivate_${k.kind}`, summary: `Deactivate a ${k.kind} with everything under it`, description: 'Permission: ManageCompany. Without deactivateAfterYear at once; with it on 31 December 23:59:59 UTC of that year (the current year or later).', params: idParams(k.param), querystring: DeactivateQuery, response: { 200: EnvelopeOnly, ...errorResponses } } }, async (req) => {
        const id = (req.params as Record<string, number>)[k.param] as number;
        await deactivateEntity(ctx, callerOf(req), k.kind, id, req.query as DeactivateOptions);
        return okEnvelope({});
      });
    }
  }
}
