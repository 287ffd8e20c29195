/**
 * The portal's storage: one interface, two implementations (SQLite for the embedded default,
 * PostgreSQL for production), one contract test suite for both. The store keeps rows and answers
 * queries; the rules (validation, permissions, states, cascades, schedules) live in the services above it.
 *
 * The hierarchy: organizations contain organizations and companies; companies contain locations;
 * registers belong to a company. Every entity has a materialized `path` of the ids from the root down to
 * itself (`/2/5/9/`), so "everything under X" is one prefix condition for searches and cascades.
 *
 * Ids: every id sequence (entities, contacts, notifications) starts at 2, the spec's minimum for ids, and
 * never reuses a value; in a new portal the root organization is 2. Entities share one sequence, so an id
 * names one organization, company or location whatever its kind.
 */

export type EntityKind = 'organization' | 'company' | 'location';
export type EntityState = 'Productive' | 'Test' | 'Deactivated';
export type RegisterState = 'Productive' | 'Test' | 'Deactivated' | 'Discharged';
export type Permission = 'ReadCompany' | 'ManageCompany' | 'ReadRegister' | 'ManageRegister';
export type ContactType = 'InvoiceContact' | 'TechnicalContact' | 'CommercialContact' | 'ElsterContact' | 'Unknown';

/** An organization, company or location as stored. Times are ISO 8601 UTC strings (`2026-11-23T10:00:00.000Z`). */
export interface Entity {
  id: number;
  kind: EntityKind;
  /** null only for a root organization */
  parentId: number | null;
  /** `/<root id>/.../<own id>/` */
  path: string;
  name: string;
  address: string | null;
  city: string | null;
  zip: string | null;
  countryCode: string | null;
  invoiceEmailAddress: string | null;
  userComment: string | null;
  state: EntityState;
  /** created as Test: the flag cannot be undone */
  test: boolean;
  /** read-only connection badge (organizations and companies), unique */
  badge: string | null;
  /** companies */
  taxId: string | null;
  ignoreTaxId: boolean;
  countryProperties: Record<string, string> | null;
  /** locations: the TL of register transactions, unique within the company */
  locationIdentification: string | null;
  /** scheduled deactivation (31 December 23:59:59 of the year asked), null when none */
  deactivateAfter: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What a create gives; the store assigns id, path and the times. */
export type NewEntity = Omit<Entity, 'id' | 'path' | 'createdAt' | 'updatedAt'>;
/** A full update: every changeable field (kind, parent and path never change through it). */
export type EntityUpdate = Omit<Entity, 'id' | 'kind' | 'parentId' | 'path' | 'createdAt' | 'updatedAt' | 'test' | 'badge'> & { test?: boolean };

export interface Register {
  registerNumber: string;
  /** the owning company */
  companyId: number;
  countryCode: string | null;
  lastTL: string | null;
  lastTT: string | null;
  userComment: string | null;
  /** time of the first and the last transaction as Unix seconds (the spec's "integer markers"), null before any */
  firstTransaction: number | null;
  lastTransaction: number | null;
  versionNumber: string | null;
  state: RegisterState;
  isCloudEFR: boolean;
  /** scheduled discharge, null when none */
  dischargeAfter: string | null;
  createdAt: string;
  updatedAt: string;
}

export type NewRegister = Omit<Register, 'createdAt' | 'updatedAt'>;

export interface Contact {
  id: number;
  companyId: number;
  contactName: string;
  emailAddress: string;
  contactType: ContactType;
  languageCode: string | null;
  /** `Created` when made */
  emailAddressVerification: string;
  createdAt: string;
}

export type NewContact = Omit<Contact, 'id' | 'createdAt'>;

export interface Notification {
  id: number;
  registerNumber: string;
  companyId: number;
  eventCode: string;
  /** level of the escalation system (named in the description as CurrentLevel) */
  level: number;
  /** texts per language code (`en`, `de`, ...); the service picks by languageCode */
  texts: Record<string, { short: string; long: string }>;
  initialTimestamp: string;
  /** when it was last raised or escalated (initialTimestamp at first) */
  raisedAt: string;
  /** null while open; at most one open notification per register and eventCode */
  closedAt: string | null;
}

export type NewNotification = Omit<Notification, 'id' | 'raisedAt' | 'closedAt'> & { raisedAt?: string; closedAt?: string | null };

/** A register's last contact with the portal (any recorder call of its instance). */
export interface RegisterContact {
  registerNumber: string;
  companyId: number;
  lastContactAt: string;
}

/** An API client of the portal: its secret only as a hash (the service decides the hash). */
export interface ApiClient {
  clientId: string;
  name: string;
  secretHash: string;
  createdAt: string;
  revokedAt: string | null;
}

/** A permission an API client holds on an entity; it is inherited by everything under that entity. */
export interface Grant {
  clientId: string;
  entityId: number;
  permission: Permission;
}

/**
 * What a caller may see: entities whose path starts with one of these prefixes (the paths of the entities
 * the caller holds the read permission on). `all` for the store's own jobs.
 */
export type ReadScope = { all: true } | { prefixes: readonly string[] };

export interface SearchPage {
  offset: number;
  /** null: no limit */
  limit: number | null;
  /**
   * a field the service has checked against the kind's list of sortable fields: one of ENTITY_SORT_FIELDS
   * (entity searches) or REGISTER_SORT_FIELDS (register searches); the store checks again and throws
   * StoreBadQuery for anything else. Text fields sort case-insensitively; nulls come last in both directions;
   * ties are broken by id (registers: registerNumber) in the same direction.
   */
  orderBy: string;
  descending: boolean;
}

export interface EntitySearch extends SearchPage {
  kind: EntityKind;
  /** direct children of that entity; undefined: any */
  parentId?: number;
  /** created strictly after (ISO) */
  createdAfter?: string;
  hasUserComment?: boolean;
  hasDeactivateAfter?: boolean;
  /** case-insensitive substring of name, userComment, city, address, zip, taxId, locationIdentification, badge, invoiceEmailAddress */
  searchText?: string;
  state?: EntityState;
  countryCode?: string;
}

export interface RegisterSearch extends SearchPage {
  /**
   * registers of this company (or, when it is an organization, of the companies under it; when it is a
   * location, of its company whose lastTL is its locationIdentification, case-insensitive)
   */
  parentId?: number;
  createdAfter?: string;
  hasUserComment?: boolean;
  hasDeactivateAfter?: boolean;
  /** case-insensitive substring of registerNumber, userComment, lastTL, lastTT, versionNumber */
  searchText?: string;
  state?: RegisterState;
  countryCode?: string;
  /** case-insensitive equality with lastTL / lastTT */
  tl?: string;
  tt?: string;
  /** Unix seconds bounds, exclusive */
  firstTransactionAfter?: number;
  firstTransactionBefore?: number;
  lastTransactionAfter?: number;
  lastTransactionBefore?: number;
}

/** The fields an entity search may be ordered by (names of Entity's members). */
export const ENTITY_SORT_FIELDS = [
  'id', 'parentId', 'name', 'address', 'city', 'zip', 'countryCode', 'invoiceEmailAddress', 'userComment', 'state',
  'badge', 'taxId', 'locationIdentification', 'deactivateAfter', 'createdAt', 'updatedAt',
] as const;
export type EntitySortField = (typeof ENTITY_SORT_FIELDS)[number];

/** The fields a register search may be ordered by (names of Register's members). */
export const REGISTER_SORT_FIELDS = [
  'registerNumber', 'companyId', 'countryCode', 'lastTL', 'lastTT', 'userComment', 'firstTransaction', 'lastTransaction',
  'versionNumber', 'state', 'isCloudEFR', 'dischargeAfter', 'createdAt', 'updatedAt',
] as const;
export type RegisterSortField = (typeof REGISTER_SORT_FIELDS)[number];

export interface SearchResult<T> {
  items: T[];
  /** all matches, without offset and limit */
  totalCount: number;
}

/** A unique constraint was violated (badge, locationIdentification within a company, client id, register number). */
export class StoreConflict extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
    this.name = 'StoreConflict';
  }
}

/** A row refers to one that does not exist (parentId, companyId, clientId or entityId). */
export class StoreReferenceMissing extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
    this.name = 'StoreReferenceMissing';
  }
}

/** The database cannot answer now (connection lost or refused, busy, deadlock, serialization): worth a retry later. */
export class StoreUnavailable extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'StoreUnavailable';
  }
}

/** A query the store refuses: orderBy outside the kind's list, a malformed scope prefix, a bad time or page bound. */
export class StoreBadQuery extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
    this.name = 'StoreBadQuery';
  }
}

/** The credential a register service instance got at activation (the token itself only as SHA-256 hex). */
export interface InstanceCredential {
  tokenHash: string;
  /** the portal register the instance activated */
  registerNumber: string;
  companyId: number;
  /** the badge it activated with */
  badge: string;
  createdAt: string;
}

/** One journal record of a register as the portal archives it (sent by the recorder). */
export interface ArchivedRecord {
  registerNumber: string;
  sq: number;
  /** the record's exact JSON text */
  data: string;
  /** hex SHA-256 chain hash of the record */
  hash: string;
  /** the record's D, when it has one */
  d: string | null;
  /** digital receipts: the transaction handle of a receipt (5 characters A-Z, 2-7), null for other records */
  th?: string | null;
  /** digital receipts: the journal signature of a receipt, base64, when the instance sent it */
  sig?: string | null;
}

/**
 * An API key of a company for its cloud instances: the key id (`ck_` and 16 base64url
 * characters) is public, the secret is kept only as its SHA-256 (hex). A revoked key is kept for the record.
 */
export interface CompanyApiKey {
  apiKey: string;
  companyId: number;
  /** hex SHA-256 of the secret */
  secretHash: string;
  name: string | null;
  createdAt: string;
  revokedAt: string | null;
}

/** Digital receipts: a register handle (16 characters A-Z, 2-7) an instance activated a register with. */
export interface RegisterHandle {
  handle: string;
  registerNumber: string;
  createdAt: string;
}

export interface PortalStore {
  /** Creates the tables or brings them to the newest version (idempotent; safe when several processes start). */
  migrate(): Promise<void>;

  createEntity(entity: NewEntity, now: Date): Promise<Entity>;
  /** Full update of one entity; undefined when there is none with this id. */
  updateEntity(id: number, update: EntityUpdate, now: Date): Promise<Entity | undefined>;
  getEntity(id: number): Promise<Entity | undefined>;
  /** Ids of all entities under the given one (not itself), any depth. */
  descendantIds(id: number): Promise<number[]>;
  searchEntities(query: EntitySearch, scope: ReadScope): Promise<SearchResult<Entity>>;
  /** Schedules (or with null cancels) the deactivation of one entity. */
  setDeactivateAfter(id: number, at: string | null, now: Date): Promise<void>;
  /**
   * Deactivates the entity and everything under it in one transaction: entities get state Deactivated,
   * registers of the companies under it (and of the company itself) get `registerState`; for a location,
   * the registers of its company whose lastTL is its locationIdentification (case-insensitive). Returns the ids
   * of the entities and the register numbers changed.
   */
  deactivateSubtree(id: number, registerState: RegisterState, now: Date): Promise<{ entities: number[]; registers: string[] }>;
  /** Entities whose deactivateAfter is at or before `now` and are not Deactivated yet. */
  dueDeactivations(now: Date): Promise<number[]>;

  /** Creates or replaces a register (the register service reports them; tests and the service layer too). */
  putRegister(register: NewRegister, now: Date): Promise<Register>;
  getRegister(registerNumber: string): Promise<Register | undefined>;
  searchRegisters(query: RegisterSearch, scope: ReadScope): Promise<SearchResult<Register>>;
  setRegisterState(registerNumber: string, state: RegisterState, dischargeAfter: string | null, now: Date): Promise<Register | undefined>;
  /** Registers whose dischargeAfter is at or before `now` and are not Discharged yet. */
  dueDischarges(now: Date): Promise<string[]>;

  createContact(contact: NewContact, now: Date): Promise<Contact>;
  listContacts(companyId: number): Promise<Contact[]>;

  addNotification(notification: NewNotification): Promise<Notification>;
  /** Notifications of registers of these companies, newest first. */
  listNotifications(companyIds: readonly number[]): Promise<Notification[]>;
  /** The open notification of a register for an event code (there is at most one). */
  openNotification(registerNumber: string, eventCode: string): Promise<Notification | undefined>;
  /** All open notifications, oldest raise first (the scheduler escalates them). */
  openNotifications(): Promise<Notification[]>;
  /**
   * Escalates an open notification if it still has the level and raisedAt the caller read (`from`): new level and
   * texts, raisedAt. Answers it when this call changed it; undefined when it is closed, unknown or was changed
   * meanwhile (another portal process escalated it first: only the process that changed it mails).
   */
  escalateNotification(id: number, change: { from: { level: number; raisedAt: string }; level: number; texts: Notification['texts']; raisedAt: string }): Promise<Notification | undefined>;
  /**
   * Flapping: reopens the newest notification of a register and event code that was closed at or after
   * `closedSince`, when none is open (closedAt back to null; level, texts and times kept). Undefined when there is
   * none; StoreConflict (eventCode) when one is open.
   */
  reopenNotification(registerNumber: string, eventCode: string, closedSince: string): Promise<Notification | undefined>;
  /**
   * Event idempotency: records that the event with this id of a register is processed; true when it was not seen
   * before (the caller processes it), false when it was.
   */
  claimEvent(registerNumber: string, eventId: string, at: string): Promise<boolean>;
  /** Forgets a claimed event id (its processing failed: a resend is processed again). */
  releaseEvent(registerNumber: string, eventId: string): Promise<void>;
  /** Forgets event ids seen before this time; answers how many. */
  pruneEvents(before: string): Promise<number>;
  /** Closes the open notification of a register for an event code; answers it, or undefined when none was open. */
  closeNotification(registerNumber: string, eventCode: string, closedAt: string): Promise<Notification | undefined>;
  /** Records a contact of a register's instance (keeps the latest time). */
  touchRegister(registerNumber: string, at: string): Promise<void>;
  /** Registers (Productive or Test) with a recorded contact, whose last contact is before this time. */
  silentRegisters(before: string): Promise<RegisterContact[]>;

  createClient(client: ApiClient): Promise<void>;
  getClient(clientId: string): Promise<ApiClient | undefined>;
  grant(grant: Grant): Promise<void>;
  grantsOf(clientId: string): Promise<Grant[]>;

  /** Recorder: stores the credential of an activated instance. */
  putInstanceCredential(credential: InstanceCredential): Promise<void>;
  instanceCredential(tokenHash: string): Promise<InstanceCredential | undefined>;
  /** Recorder: stores archived records; a record whose (registerNumber, sq) is stored already is left as it is. */
  archiveRecords(records: readonly ArchivedRecord[]): Promise<void>;
  /** Recorder: the highest archived SQ of a register; undefined when the portal holds none of its records. */
  lastArchivedSq(registerNumber: string): Promise<number | undefined>;
  /** Recorder: the archived records of a register with fromSq <= sq <= toSq, in SQ order. */
  archivedRecords(registerNumber: string, fromSq: number, toSq: number): Promise<ArchivedRecord[]>;
  /** Recorder: records the day (YYYY-MM-DD) a register was first used unless one is recorded; answers the recorded day. */
  recordFirstUse(registerNumber: string, day: string): Promise<string>;
  /**
   * Digital receipts: binds a register handle to a register unless the handle is bound already; answers the
   * register number the handle is bound to (another one than asked when it was bound before).
   */
  putRegisterHandle(handle: RegisterHandle): Promise<string>;
  /** Digital receipts: the register number a register handle is bound to. */
  registerOfHandle(handle: string): Promise<string | undefined>;
  /** Digital receipts: the archived records of a register with this transaction handle, in SQ order. */
  archivedRecordsByTh(registerNumber: string, th: string): Promise<ArchivedRecord[]>;
  /** Digital receipts: the last archived Cfg record of a register before SQ `beforeSq` (the Cfg in force then). */
  archivedCfgBefore(registerNumber: string, beforeSq: number): Promise<ArchivedRecord | undefined>;

  /** Cloud API keys: stores a new key (StoreReferenceMissing companyId for an unknown company, StoreConflict apiKey when taken). */
  createCompanyApiKey(key: CompanyApiKey): Promise<void>;
  getCompanyApiKey(apiKey: string): Promise<CompanyApiKey | undefined>;
  /** Cloud API keys of a company, revoked ones too, oldest first. */
  listCompanyApiKeys(companyId: number): Promise<CompanyApiKey[]>;
  /** Marks a key revoked at `at` (a revoked key keeps its first time); answers the key, undefined when unknown. */
  revokeCompanyApiKey(apiKey: string, at: string): Promise<CompanyApiKey | undefined>;

  close(): Promise<void>;
}
