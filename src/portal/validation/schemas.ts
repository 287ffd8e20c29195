/**
 * JSON schemas (TypeBox) of the portal's requests and answers. Fastify validates requests with them (every
 * bound of the spec: ids >= 2, lengths, e-mail format, limit/offset) and @fastify/swagger builds the OpenAPI
 * document from them; checks a schema cannot express (ISO country codes, tax ids, uniqueness) are in
 * entity-rules.ts and tax-id.ts.
 */
import Type, { type TSchema } from 'typebox';

export const STATES = ['Productive', 'Test', 'Deactivated'] as const;
export const REGISTER_STATES = ['Productive', 'Test', 'Deactivated', 'Discharged'] as const;
export const CONTACT_TYPES = ['InvoiceContact', 'TechnicalContact', 'CommercialContact', 'ElsterContact'] as const;
export const PERMISSIONS = ['ReadCompany', 'ManageCompany', 'ReadRegister', 'ManageRegister'] as const;

interface StrOpts {
  min?: number;
  max?: number;
  format?: string;
  description?: string;
}

/** A required string. */
const str = (o: StrOpts = {}): TSchema =>
  Type.String({ ...(o.min !== undefined ? { minLength: o.min } : {}), ...(o.max !== undefined ? { maxLength: o.max } : {}), ...(o.format ? { format: o.format } : {}), ...(o.description ? { description: o.description } : {}) });

/** An optional string that may also be null (null and absent mean "not set"). */
const optStr = (o: StrOpts = {}): TSchema =>
  Type.Optional(
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      ...(o.min !== undefined ? { minLength: o.min } : {}),
      ...(o.max !== undefined ? { maxLength: o.max } : {}),
      ...(o.format ? { format: o.format } : {}),
      ...(o.description ? { description: o.description } : {}),
    }),
  );

const optBool = (description?: string): TSchema => Type.Optional(Type.Unsafe<boolean | null>({ type: ['boolean', 'null'], ...(description ? { description } : {}) }));
const enumOf = (values: readonly string[], description?: string): TSchema => Type.Unsafe<string>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const optEnum = (values: readonly string[], description?: string): TSchema =>
  Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], enum: [...values, null], ...(description ? { description } : {}) }));

/** ids: 2 and up, within what JavaScript and the databases hold exactly */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const Id = Type.Integer({ minimum: 2, maximum: MAX_ID });
const optId = (description?: string): TSchema => Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 2, maximum: MAX_ID, ...(description ? { description } : {}) }));

const name = str({ min: 2, max: 1000 });
const countryCode = str({ min: 2, max: 2, description: 'ISO 3166-1 alpha-2' });
const countryProperties = Type.Optional(
  Type.Unsafe<Record<string, string> | null>({
    type: ['object', 'null'],
    additionalProperties: { type: 'string', maxLength: 1000 },
    properties: { dE_WIdNr: { type: 'string', maxLength: 1000, description: 'German business identification number (Wirtschafts-Identifikationsnummer)' } },
    description: 'country-specific data',
  }),
);

const common = {
  address: optStr({ max: 1000 }),
  city: optStr({ max: 1000 }),
  zip: optStr({ max: 50 }),
  countryCode: optStr({ min: 2, max: 2, description: 'ISO 3166-1 alpha-2' }),
  invoiceEmailAddress: optStr({ max: 100, format: 'email' }),
  userComment: optStr({ max: 2000 }),
};

const required = {
  address: str({ min: 1, max: 1000 }),
  city: str({ min: 1, max: 1000 }),
  zip: str({ min: 1, max: 50 }),
  countryCode,
};

export const OrganizationCreate = Type.Object({
  parentEntityId: Id,
  name,
  ...common,
  state: optEnum(['Productive', 'Test'], 'Productive (default) or Test; Test cannot be undone'),
});

export const OrganizationUpdate = Type.Object({
  parentEntityId: optId('when given, must be the current parent (entities are not moved)'),
  name,
  ...common,
  state: optEnum(STATES, 'absent: unchanged'),
  countryProperties,
});

export const CompanyCreate = Type.Object({
  parentEntityId: Id,
  name,
  ...common,
  ...required,
  taxId: str({ min: 4, max: 40, description: 'EU tax id (VAT number), validated by country unless ignoreTaxId' }),
  ignoreTaxId: optBool('true: the tax id is saved without validation'),
  state: optEnum(['Productive', 'Test']),
  countryProperties,
});

export const CompanyUpdate = Type.Object({
  parentEntityId: optId('when given, must be the current parent'),
  name,
  ...common,
  ...required,
  taxId: optStr({ min: 4, max: 40, description: 'absent: unchanged; changeable only when the company has ignoreTaxId' }),
  state: optEnum(STATES),
  countryProperties,
});

export const LocationCreate = Type.Object({
  parentEntityId: Id,
  name,
  ...common,
  ...required,
  locationIdentification: str({ min: 1, max: 1000, description: 'the TL of register transactions; letters, digits and - + < > # . , =; unique within the company' }),
  state: optEnum(['Productive', 'Test']),
});

export const LocationUpdate = Type.Object({
  parentEntityId: Id,
  name,
  ...common,
  ...required,
  locationIdentification: str({ min: 1, max: 1000 }),
  state: optEnum(STATES),
});

export const ContactCreate = Type.Object({
  companyId: Id,
  contactName: str({ min: 2, max: 500 }),
  emailAddress: str({ max: 500, format: 'email' }),
  contactType: enumOf(CONTACT_TYPES),
  languageCode: optStr({ max: 20 }),
});

const searchCommon = {
  parentEntityId: optId('direct children of that entity'),
  createdAfter: optStr({ format: 'date-time' }),
  hasUserComment: optBool('null ignores the filter'),
  hasDeactivateAfterTimestamp: optBool('null ignores the filter'),
  searchText: optStr({ max: 1000 }),
  orderByField: optStr({ max: 100 }),
  orderDescending: optBool(),
  offset: Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 0, maximum: MAX_ID, default: 0 })),
  limit: Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 0, maximum: 250, description: '0: no limit (all matches); default 100' })),
};

export const EntitySearchBody = Type.Object({
  ...searchCommon,
  state: optEnum(STATES),
  countryCode: optStr({ min: 2, max: 2 }),
});

export const RegisterSearchBody = Type.Object({
  ...searchCommon,
  state: optEnum(REGISTER_STATES),
  countryCode: optStr({ min: 2, max: 2 }),
  tl: optStr({ max: 1000, description: 'case-insensitive equality with lastTL' }),
  tt: optStr({ max: 1000, description: 'case-insensitive equality with lastTT' }),
  firstTransactionAfter: optStr({ format: 'date-time' }),
  firstTransactionBefore: optStr({ format: 'date-time' }),
  lastTransactionAfter: optStr({ format: 'date-time' }),
  lastTransactionBefore: optStr({ format: 'date-time' }),
});

export const ClientCreate = Type.Object({
  name: str({ min: 2, max: 200 }),
  grants: Type.Array(Type.Object({ entityId: Id, permission: enumOf(PERMISSIONS) }), { minItems: 1, maxItems: 100 }),
});

export const TokenRequest = Type.Object({
  grant_type: Type.Optional(Type.String({ description: 'client_credentials' })),
  client_id: Type.Optional(Type.String({ maxLength: 200 })),
  client_secret: Type.Optional(Type.String({ maxLength: 200 })),
  clientId: Type.Optional(Type.String({ maxLength: 200 })),
  clientSecret: Type.Optional(Type.String({ maxLength: 200 })),
});

export const DeactivateQuery = Type.Object({
  deactivateAfterYear: Type.Optional(Type.Integer({ minimum: 1970, maximum: 9999, description: 'absent: at once; else on 31 December 23:59:59 UTC of that year' })),
  forceSubDeactivation: Type.Optional(Type.Boolean({ description: 'accepted; no fiscal units with notice periods exist here' })),
});

export const DischargeQuery = Type.Object({
  dischargeAfter: Type.Optional(Type.String({ format: 'date-time', description: 'absent: at once; else the register is discharged at this time' })),
});

export const NotificationsQuery = Type.Object({
  languageCode: Type.Optional(Type.String({ maxLength: 20, description: 'ISO 639-1, optionally with region (default en-US)' })),
});

export const idParams = (name: string): TSchema => Type.Object({ [name]: Id });
export const RegisterParams = Type.Object({ registerNumber: Type.String({ minLength: 1, maxLength: 200 }) });

// ---- answers (documentation; the serializer writes the objects as they are) ----

const nullableStr = Type.Unsafe<string | null>({ type: ['string', 'null'] });
const nullableInt = Type.Unsafe<number | null>({ type: ['integer', 'null'] });

export const EnvelopeFields = {
  success: Type.Boolean(),
  errorCode: nullableStr,
  errorMessage: nullableStr,
  errorMessageTranslated: nullableStr,
  validationErrors: Type.Record(Type.String(), Type.Array(Type.String())),
};
export const EnvelopeOnly = Type.Object(EnvelopeFields);

const entityFields = {
  id: Type.Integer(),
  parentEntityId: nullableInt,
  name: Type.String(),
  address: nullableStr,
  city: nullableStr,
  zip: nullableStr,
  countryCode: nullableStr,
  invoiceEmailAddress: nullableStr,
  userComment: nullableStr,
  state: enumOf(STATES),
  isTest: Type.Boolean(),
  deactivateAfterTimestamp: nullableStr,
  creationTimestamp: Type.String({ format: 'date-time' }),
  lastModifiedTimestamp: Type.String({ format: 'date-time' }),
};
export const OrganizationOut = Type.Object({ ...entityFields, badge: nullableStr, countryProperties: Type.Unsafe<Record<string, string> | null>({ type: ['object', 'null'] }) });
export const CompanyOut = Type.Object({
  ...entityFields,
  badge: nullableStr,
  taxId: nullableStr,
  ignoreTaxId: Type.Boolean(),
  countryProperties: Type.Unsafe<Record<string, string> | null>({ type: ['object', 'null'] }),
});
export const LocationOut = Type.Object({ ...entityFields, locationIdentification: Type.String() });
export const ContactOut = Type.Object({
  id: Type.Integer(),
  companyId: Type.Integer(),
  contactName: Type.String(),
  emailAddress: Type.String(),
  contactType: Type.String(),
  languageCode: nullableStr,
  emailAddressVerification: Type.String(),
  creationTimestamp: Type.String({ format: 'date-time' }),
});
export const RegisterOut = Type.Object({
  registerNumber: Type.String(),
  parentEntityId: Type.Integer(),
  countryCode: nullableStr,
  lastTL: nullableStr,
  lastTT: nullableStr,
  userComment: nullableStr,
  firstTransaction: nullableInt,
  lastTransaction: nullableInt,
  versionNumber: nullableStr,
  state: enumOf(REGISTER_STATES),
  isCloudEFR: Type.Boolean(),
  dischargeAfterTimestamp: nullableStr,
  creationTimestamp: Type.String({ format: 'date-time' }),
});
export const NotificationOut = Type.Object({
  registerNumber: Type.String(),
  eventCode: Type.String(),
  descriptionShort: Type.String(),
  descriptionLong: Type.String(),
  initialTimestamp: Type.String({ format: 'date-time' }),
  companyId: Type.Integer(),
  companyName: Type.String(),
  currentLevel: Type.Integer(),
  closedAt: Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time', description: 'null while open' }),
});

export const withEnvelope = (fields: Record<string, TSchema>): TSchema => Type.Object({ ...EnvelopeFields, ...fields });
export const searchAnswer = (item: TSchema): TSchema => withEnvelope({ currentCount: Type.Integer(), totalCount: Type.Integer(), foundItems: Type.Array(item) });
