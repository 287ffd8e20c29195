/**
 * The portal's production store: PostgreSQL through a pg pool. Times are timestamptz (pg gives Date, turned
 * into ISO strings here), ids bigint (pg gives strings, turned into numbers here: ids stay far below 2^53),
 * JSON columns jsonb. Migrations run under a transaction-scoped advisory lock, so processes that start at
 * the same time apply them once. With `schema`, every pooled connection gets that search_path.
 */
import { inTransaction, openPool } from '../../../shared/postgres.js';
import pg from 'pg';
import type { PoolClient, QueryResultRow } from 'pg';
import { CLIENT_SELECT, CONTACT_SELECT, ENTITY_SELECT, NOTIFICATION_SELECT, REGISTER_SELECT, notificationTexts, stringRecord } from '../columns.js';
import { containsPattern } from '../like.js';
import { checkKnown } from '../migration.js';
import { pathRange } from '../scope.js';
import { entitySearchSql, registerSearchSql, totalWithoutCount, type Dialect, type SearchSql } from '../search-sql.js';
import { isoTime, isoTimeOrNull } from '../times.js';
import {
  StoreConflict, StoreReferenceMissing, StoreUnavailable,
  type ApiClient, type ArchivedRecord, type CompanyApiKey, type RegisterHandle, type InstanceCredential, type Contact, type ContactType, type Entity, type EntityKind, type EntitySearch, type EntityState, type EntityUpdate,
  type Grant, type NewContact, type NewEntity, type NewNotification, type NewRegister, type Notification, type Permission,
  type PortalStore, type ReadScope, type Register, type RegisterContact, type RegisterSearch, type RegisterState, type SearchResult,
} from '../types.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';

const dialect: Dialect = {
  bind(params, value) {
    params.push(value);
    return `$${params.length}`;
  },
  time(params, iso) {
    params.push(iso);
    return `$${params.length}::timestamptz`;
  },
  textOrder: (column) => [`lower(${column}) COLLATE "C"`, `${column} COLLATE "C"`],
  exact: (column) => `${column} COLLATE "C"`,
  lower: (expression) => `lower(${expression})`,
  // lower() on both sides: the generated search column uses the database's lower()
  contains(params, column, text) {
    params.push(containsPattern(text));
    return `${column} LIKE lower($${params.length}) ESCAPE '\\'`;
  },
  page(params, offset, limit) {
    params.push(offset);
    const o = `OFFSET $${params.length}`;
    if (limit === null) return o;
    params.push(limit);
    return `LIMIT $${params.length} ${o}`;
  },
};

/** The advisory lock key of migrations (one for the whole server: creating the extension is server-wide too). */
const MIGRATE_LOCK = "hashtext('efr portal store: migrate')";


interface EntityRow {
  id: string; kind: string; parent_id: string | null; path: string; name: string;
  address: string | null; city: string | null; zip: string | null; country_code: string | null;
  invoice_email_address: string | null; user_comment: string | null; state: string; test: boolean; badge: string | null;
  tax_id: string | null; ignore_tax_id: boolean; country_properties: unknown; location_identification: string | null;
  deactivate_after: Date | null; created_at: Date; updated_at: Date;
}

interface RegisterRow {
  register_number: string; company_id: string; country_code: string | null; last_tl: string | null; last_tt: string | null;
  user_comment: string | null; first_transaction: string | null; last_transaction: string | null; version_number: string | null;
  state: string; is_cloud_efr: boolean; discharge_after: Date | null; created_at: Date; updated_at: Date;
}

interface ContactRow {
  id: string; company_id: string; contact_name: string; email_address: string; contact_type: string;
  language_code: string | null; email_address_verification: string; created_at: Date;
}

interface NotificationRow {
  id: string; register_number: string; company_id: string; event_code: string; level: number; texts: unknown; initial_timestamp: Date;
  raised_at: Date; closed_at: Date | null;
}

interface ClientRow { client_id: string; name: string; secret_hash: string; created_at: Date; revoked_at: Date | null }

/** int8 comes as a string: a number it must be, and a safe one. */
function int(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`stored integer out of range: ${v}`);
  return n;
}

function intOrNull(v: string | null): number | null {
  return v === null ? null : int(v);
}

function iso(d: Date): string {
  return d.toISOString();
}

function isoOrNull(d: Date | null): string | null {
  return d === null ? null : d.toISOString();
}

function toEntity(r: EntityRow): Entity {
  return {
    id: int(r.id), kind: r.kind as EntityKind, parentId: intOrNull(r.parent_id), path: r.path, name: r.name,
    address: r.address, city: r.city, zip: r.zip, countryCode: r.country_code, invoiceEmailAddress: r.invoice_email_address,
    userComment: r.user_comment, state: r.state as EntityState, test: r.test, badge: r.badge, taxId: r.tax_id, ignoreTaxId: r.ignore_tax_id,
    countryProperties: r.country_properties === null ? null : stringRecord(r.country_properties, 'countryProperties'),
    locationIdentification: r.location_identification, deactivateAfter: isoOrNull(r.deactivate_after),
    createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
  };
}

function toRegister(r: RegisterRow): Register {
  return {
    registerNumber: r.register_number, companyId: int(r.company_id), countryCode: r.country_code, lastTL: r.last_tl, lastTT: r.last_tt,
    userComment: r.user_comment, firstTransaction: intOrNull(r.first_transaction), lastTransaction: intOrNull(r.last_transaction),
    versionNumber: r.version_number, state: r.state as RegisterState, isCloudEFR: r.is_cloud_efr,
    dischargeAfter: isoOrNull(r.discharge_after), createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
  };
}

function toContact(r: ContactRow): Contact {
  return {
    id: int(r.id), companyId: int(r.company_id), contactName: r.contact_name, emailAddress: r.email_address,
    contactType: r.contact_type as ContactType, languageCode: r.language_code, emailAddressVerification: r.email_address_verification,
    createdAt: iso(r.created_at),
  };
}

function toNotification(r: NotificationRow): Notification {
  return {
    id: int(r.id), registerNumber: r.register_number, companyId: int(r.company_id), eventCode: r.event_code, level: r.level,
    texts: notificationTexts(r.texts), initialTimestamp: iso(r.initial_timestamp),
    raisedAt: iso(r.raised_at), closedAt: isoOrNull(r.closed_at),
  };
}

function toClient(r: ClientRow): ApiClient {
  return { clientId: r.client_id, name: r.name, secretHash: r.secret_hash, createdAt: iso(r.created_at), revokedAt: isoOrNull(r.revoked_at) };
}

const UNIQUE_FIELDS: Record<string, string> = {
  entities_badge_key: 'badge',
  entities_location_key: 'locationIdentification',
  entities_location_ci: 'locationIdentification',
  api_clients_pkey: 'clientId',
  registers_pkey: 'registerNumber',
  notifications_open: 'eventCode',
  company_api_keys_pkey: 'apiKey',
};

const REFERENCE_FIELDS: Record<string, string> = {
  entities_parent_fkey: 'parentId',
  registers_company_fkey: 'companyId',
  contacts_company_fkey: 'companyId',
  notifications_company_fkey: 'companyId',
  grants_client_fkey: 'clientId',
  grants_entity_fkey: 'entityId',
  company_api_keys_company_fkey: 'companyId',
};

/** Connection failures and the SQLSTATE classes worth a retry. */
const TRANSIENT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', '40001', '40P01', '53300', '57P01', '57P02', '57P03']);

function mapError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const code = 'code' in err ? String(err.code) : '';
  const constraint = 'constraint' in err && typeof err.constraint === 'string' ? err.constraint : '';
  if (code === '23505') {
    const field = UNIQUE_FIELDS[constraint];
    if (field) return new StoreConflict(field, `${field} is already in use`);
  }
  if (code === '23503') {
    const field = REFERENCE_FIELDS[constraint];
    if (field) return new StoreReferenceMissing(field, `${field} refers to nothing`);
  }
  if (TRANSIENT_CODES.has(code) || code.startsWith('08') || /Connection terminated|timeout exceeded when trying to connect/i.test(err.message)) {
    return new StoreUnavailable(`the portal database is not available: ${err.message}`, err);
  }
  return err;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

type Queryable = Pick<PoolClient, 'query'>;

export interface PostgresStoreOptions {
  /** postgres://user[:password]@host[:port]/database[?...] */
  url: string;
  /** the schema to work in (search_path of every pooled connection); default: the server's search_path */
  schema?: string;
  /** pooled connections, default 10 */
  poolSize?: number;
}

interface ArchiveRow { register_number: string; sq: string; data: string; hash: string; d: string | null; th: string | null; sig: string | null }

function archivedOf(r: ArchiveRow): ArchivedRecord {
  // th and sig only when stored (records of other types, and of instances that send neither, have none)
  return { registerNumber: r.register_number, sq: int(r.sq), data: r.data, hash: r.hash, d: r.d, ...(r.th !== null ? { th: r.th } : {}), ...(r.sig !== null ? { sig: r.sig } : {}) };
}

const COMPANY_API_KEY_SELECT = 'api_key, company_id, secret_hash, name, created_at, revoked_at';
interface CompanyApiKeyRow { api_key: string; company_id: string; secret_hash: string; name: string | null; created_at: Date; revoked_at: Date | null }

function companyApiKeyOf(r: CompanyApiKeyRow): CompanyApiKey {
  return {
    apiKey: r.api_key, companyId: int(r.company_id), secretHash: r.secret_hash, name: r.name,
    createdAt: new Date(r.created_at).toISOString(), revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at).toISOString(),
  };
}

export class PostgresPortalStore implements PortalStore {
  private readonly pool: pg.Pool;
  /** the last error of an idle pooled connection (the pool replaces it; without a listener it would end the process) */
  lastIdleError: Error | undefined;

  constructor(options: PostgresStoreOptions) {
    this.pool = openPool(options, (err) => {
      this.lastIdleError = err;
    });
  }

  private async q<R extends QueryResultRow>(sql: string, params: unknown[] = [], on: Queryable = this.pool): Promise<R[]> {
    try {
      return (await on.query<R>(sql, params)).rows;
    } catch (err) {
      throw mapError(err);
    }
  }

  private async tx<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(this.pool, fn);
    } catch (err) {
      throw mapError(err);
    }
  }

  async migrate(): Promise<void> {
    await this.tx(async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock(${MIGRATE_LOCK})`);
      await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)');
      const applied = (await this.q<{ version: number }>('SELECT version FROM schema_migrations', [], c)).map((r) => r.version);
      checkKnown(applied, POSTGRES_MIGRATIONS);
      const pending = [...POSTGRES_MIGRATIONS].sort((a, b) => a.version - b.version).filter((m) => !applied.includes(m.version));
      if (pending.length === 0) return;
      const trgm = quoteIdent(await this.trigramSchema(c));
      for (const m of pending) {
        await c.query(m.sql.replaceAll('@trgm@', trgm));
        await c.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())', [m.version, m.name]);
      }
    });
  }

  /**
   * The schema of pg_trgm, installed when missing: into `public` when there is one (never into a working
   * schema that a test drops with CASCADE, which would take the extension from every other schema).
   */
  private async trigramSchema(c: Queryable): Promise<string> {
    const find = 'SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = \'pg_trgm\'';
    let rows = await this.q<{ schema: string }>(find, [], c);
    if (rows.length === 0) {
      const pub = await this.q('SELECT 1 FROM pg_namespace WHERE nspname = \'public\'', [], c);
      await c.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm${pub.length ? ' WITH SCHEMA public' : ''}`);
      rows = await this.q<{ schema: string }>(find, [], c);
    }
    const schema = rows[0]?.schema;
    if (schema === undefined) throw new Error('the extension pg_trgm could not be installed');
    return schema;
  }

  private async entity(id: number, on: Queryable = this.pool): Promise<Entity | undefined> {
    const rows = await this.q<EntityRow>(`SELECT ${ENTITY_SELECT} FROM entities e WHERE e.id = $1`, [id], on);
    return rows[0] && toEntity(rows[0]);
  }

  async createEntity(entity: NewEntity, now: Date): Promise<Entity> {
    let parentPath = '/';
    if (entity.parentId !== null) {
      // paths never change, so the parent's can be read before the insert
      const parent = await this.q<{ path: string }>('SELECT path FROM entities WHERE id = $1', [entity.parentId]);
      if (!parent[0]) throw new StoreReferenceMissing('parentId', `there is no entity ${entity.parentId}`);
      parentPath = parent[0].path;
    }
    const rows = await this.q<EntityRow>(
      `WITH n AS (SELECT nextval('entity_ids') AS id)
       INSERT INTO entities AS e (id, kind, parent_id, path, name, address, city, zip, country_code, invoice_email_address, user_comment,
         state, test, badge, tax_id, ignore_tax_id, country_properties, location_identification, deactivate_after, created_at, updated_at)
       SELECT n.id, $1, $2, $3::text || n.id::text || '/', $4, $5, $6, $7, $8, $9, $10,
         $11, $12, $13, $14, $15, $16::jsonb, $17, $18::timestamptz, $19::timestamptz, $19::timestamptz FROM n
       RETURNING ${ENTITY_SELECT}`,
      [
        entity.kind, entity.parentId, parentPath, entity.name, entity.address, entity.city, entity.zip, entity.countryCode,
        entity.invoiceEmailAddress, entity.userComment, entity.state, entity.test, entity.badge, entity.taxId, entity.ignoreTaxId,
        entity.countryProperties === null ? null : JSON.stringify(entity.countryProperties), entity.locationIdentification,
        isoTimeOrNull(entity.deactivateAfter, 'deactivateAfter'), now.toISOString(),
      ],
    );
    if (!rows[0]) throw new Error('the insert of an entity returned nothing');
    return toEntity(rows[0]);
  }

  /** Many entities in one statement (imports, the benchmark); each one's parent must exist before the call. */
  async createEntities(entities: readonly NewEntity[], now: Date): Promise<Entity[]> {
    if (entities.length === 0) return [];
    const parentIds = [...new Set(entities.map((e) => e.parentId).filter((p): p is number => p !== null))];
    const parents = await this.q<{ id: string; path: string }>('SELECT id, path FROM entities WHERE id = ANY($1::bigint[])', [parentIds]);
    const pathOf = new Map(parents.map((p) => [int(p.id), p.path]));
    const missing = parentIds.find((p) => !pathOf.has(p));
    if (missing !== undefined) throw new StoreReferenceMissing('parentId', `there is no entity ${missing}`);
    const col = <T>(f: (e: NewEntity) => T): T[] => entities.map(f);
    const rows = await this.q<EntityRow>(
      `WITH input AS (
         SELECT nextval('entity_ids') AS id, u.* FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
           $8::text[], $9::text[], $10::text[], $11::text[], $12::boolean[], $13::text[], $14::text[], $15::boolean[], $16::jsonb[], $17::text[],
           $18::timestamptz[]) WITH ORDINALITY
           AS u(kind, parent_id, parent_path, name, address, city, zip, country_code, invoice_email_address, user_comment, state, test, badge,
                tax_id, ignore_tax_id, country_properties, location_identification, deactivate_after, ord)
         ORDER BY u.ord)
       INSERT INTO entities AS e (id, kind, parent_id, path, name, address, city, zip, country_code, invoice_email_address, user_comment,
         state, test, badge, tax_id, ignore_tax_id, country_properties, location_identification, deactivate_after, created_at, updated_at)
       SELECT id, kind, parent_id, parent_path || id::text || '/', name, address, city, zip, country_code, invoice_email_address, user_comment,
         state, test, badge, tax_id, ignore_tax_id, country_properties, location_identification, deactivate_after, $19::timestamptz, $19::timestamptz
       FROM input ORDER BY ord
       RETURNING ${ENTITY_SELECT}`,
      [
        col((e) => e.kind), col((e) => e.parentId), col((e) => (e.parentId === null ? '/' : pathOf.get(e.parentId))), col((e) => e.name),
        col((e) => e.address), col((e) => e.city), col((e) => e.zip), col((e) => e.countryCode), col((e) => e.invoiceEmailAddress),
        col((e) => e.userComment), col((e) => e.state), col((e) => e.test), col((e) => e.badge), col((e) => e.taxId), col((e) => e.ignoreTaxId),
        col((e) => (e.countryProperties === null ? null : JSON.stringify(e.countryProperties))), col((e) => e.locationIdentification),
        col((e) => isoTimeOrNull(e.deactivateAfter, 'deactivateAfter')), now.toISOString(),
      ],
    );
    return rows.map(toEntity);
  }

  async updateEntity(id: number, update: EntityUpdate, now: Date): Promise<Entity | undefined> {
    const rows = await this.q<EntityRow>(
      `UPDATE entities AS e SET name = $2, address = $3, city = $4, zip = $5, country_code = $6, invoice_email_address = $7,
         user_comment = $8, state = $9, test = coalesce($10::boolean, e.test), tax_id = $11, ignore_tax_id = $12,
         country_properties = $13::jsonb, location_identification = $14, deactivate_after = $15::timestamptz, updated_at = $16::timestamptz
       WHERE e.id = $1 RETURNING ${ENTITY_SELECT}`,
      [
        id, update.name, update.address, update.city, update.zip, update.countryCode, update.invoiceEmailAddress, update.userComment,
        update.state, update.test ?? null, update.taxId, update.ignoreTaxId,
        update.countryProperties === null ? null : JSON.stringify(update.countryProperties), update.locationIdentification,
        isoTimeOrNull(update.deactivateAfter, 'deactivateAfter'), now.toISOString(),
      ],
    );
    return rows[0] && toEntity(rows[0]);
  }

  async getEntity(id: number): Promise<Entity | undefined> {
    return this.entity(id);
  }

  async descendantIds(id: number): Promise<number[]> {
    const e = await this.entity(id);
    if (!e) return [];
    const r = pathRange(e.path);
    const rows = await this.q<{ id: string }>('SELECT id FROM entities WHERE path >= $1 AND path < $2 AND id <> $3 ORDER BY id', [r.from, r.to, id]);
    return rows.map((x) => int(x.id));
  }

  private async search<Row extends QueryResultRow, T>(from: string, select: string, s: SearchSql | null, q: { offset: number; limit: number | null }, map: (r: Row) => T): Promise<SearchResult<T>> {
    if (s === null) return { items: [], totalCount: 0 };
    const rows = await this.q<Row>(`SELECT ${select} FROM ${from} ${s.where} ${s.order} ${s.page}`, s.pageParams);
    let totalCount = totalWithoutCount(q.offset, q.limit, rows.length);
    if (totalCount === undefined) {
      const n = await this.q<{ n: string }>(`SELECT count(*) AS n FROM ${from} ${s.where}`, s.whereParams);
      totalCount = int(n[0]?.n ?? '0');
    }
    return { items: rows.map(map), totalCount };
  }

  async searchEntities(query: EntitySearch, scope: ReadScope): Promise<SearchResult<Entity>> {
    return this.search('entities e', ENTITY_SELECT, entitySearchSql(dialect, query, scope), query, toEntity);
  }

  async setDeactivateAfter(id: number, at: string | null, now: Date): Promise<void> {
    await this.q('UPDATE entities SET deactivate_after = $2::timestamptz, updated_at = $3::timestamptz WHERE id = $1', [id, isoTimeOrNull(at, 'deactivateAfter'), now.toISOString()]);
  }

  async deactivateSubtree(id: number, registerState: RegisterState, now: Date): Promise<{ entities: number[]; registers: string[] }> {
    return this.tx(async (c) => {
      const target = await this.entity(id, c);
      if (!target) return { entities: [], registers: [] };
      const at = now.toISOString();
      const r = pathRange(target.path);
      const entities = (await this.q<{ id: string }>(
        "UPDATE entities SET state = 'Deactivated', updated_at = $1::timestamptz WHERE path >= $2 AND path < $3 AND state <> 'Deactivated' RETURNING id",
        [at, r.from, r.to], c,
      )).map((x) => int(x.id));
      // a Discharged register stays so; one already in the asked state is not changed
      const rows = target.kind === 'location'
        ? await this.q<{ register_number: string }>(
          `UPDATE registers SET state = $1, updated_at = $2::timestamptz WHERE company_id = $3 AND lower(last_tl) = lower($4)
             AND state NOT IN ('Discharged', $1) RETURNING register_number`,
          [registerState, at, target.parentId, target.locationIdentification], c,
        )
        : await this.q<{ register_number: string }>(
          `UPDATE registers SET state = $1, updated_at = $2::timestamptz
             WHERE company_id IN (SELECT id FROM entities WHERE kind = 'company' AND path >= $3 AND path < $4)
             AND state NOT IN ('Discharged', $1) RETURNING register_number`,
          [registerState, at, r.from, r.to], c,
        );
      const registers = rows.map((x) => x.register_number);
      return { entities: entities.sort((a, b) => a - b), registers: registers.sort() };
    });
  }

  async dueDeactivations(now: Date): Promise<number[]> {
    const rows = await this.q<{ id: string }>(
      "SELECT id FROM entities WHERE deactivate_after IS NOT NULL AND deactivate_after <= $1::timestamptz AND state <> 'Deactivated' ORDER BY deactivate_after, id",
      [now.toISOString()],
    );
    return rows.map((x) => int(x.id));
  }

  async putRegister(register: NewRegister, now: Date): Promise<Register> {
    const rows = await this.q<RegisterRow>(
      `INSERT INTO registers AS r (register_number, company_id, country_code, last_tl, last_tt, user_comment, first_transaction, last_transaction,
         version_number, state, is_cloud_efr, discharge_after, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::timestamptz, $13::timestamptz, $13::timestamptz)
       ON CONFLICT (register_number) DO UPDATE SET company_id = excluded.company_id, country_code = excluded.country_code,
         last_tl = excluded.last_tl, last_tt = excluded.last_tt, user_comment = excluded.user_comment,
         first_transaction = excluded.first_transaction, last_transaction = excluded.last_transaction,
         version_number = excluded.version_number, state = excluded.state, is_cloud_efr = excluded.is_cloud_efr,
         discharge_after = excluded.discharge_after, updated_at = excluded.updated_at
       RETURNING ${REGISTER_SELECT}`,
      [
        register.registerNumber, register.companyId, register.countryCode, register.lastTL, register.lastTT, register.userComment,
        register.firstTransaction, register.lastTransaction, register.versionNumber, register.state, register.isCloudEFR,
        isoTimeOrNull(register.dischargeAfter, 'dischargeAfter'), now.toISOString(),
      ],
    );
    if (!rows[0]) throw new Error('the insert of a register returned nothing');
    return toRegister(rows[0]);
  }

  async getRegister(registerNumber: string): Promise<Register | undefined> {
    const rows = await this.q<RegisterRow>(`SELECT ${REGISTER_SELECT} FROM registers r WHERE r.register_number = $1`, [registerNumber]);
    return rows[0] && toRegister(rows[0]);
  }

  async searchRegisters(query: RegisterSearch, scope: ReadScope): Promise<SearchResult<Register>> {
    return this.search('registers r JOIN entities c ON c.id = r.company_id', REGISTER_SELECT, registerSearchSql(dialect, query, scope), query, toRegister);
  }

  async setRegisterState(registerNumber: string, state: RegisterState, dischargeAfter: string | null, now: Date): Promise<Register | undefined> {
    const rows = await this.q<RegisterRow>(
      `UPDATE registers AS r SET state = $2, discharge_after = $3::timestamptz, updated_at = $4::timestamptz
       WHERE r.register_number = $1 RETURNING ${REGISTER_SELECT}`,
      [registerNumber, state, isoTimeOrNull(dischargeAfter, 'dischargeAfter'), now.toISOString()],
    );
    return rows[0] && toRegister(rows[0]);
  }

  async dueDischarges(now: Date): Promise<string[]> {
    const rows = await this.q<{ register_number: string }>(
      `SELECT register_number FROM registers WHERE discharge_after IS NOT NULL AND discharge_after <= $1::timestamptz AND state <> 'Discharged'
       ORDER BY discharge_after, register_number COLLATE "C"`,
      [now.toISOString()],
    );
    return rows.map((x) => x.register_number);
  }

  async createContact(contact: NewContact, now: Date): Promise<Contact> {
    const rows = await this.q<ContactRow>(
      `INSERT INTO contacts (company_id, contact_name, email_address, contact_type, language_code, email_address_verification, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz) RETURNING ${CONTACT_SELECT}`,
      [contact.companyId, contact.contactName, contact.emailAddress, contact.contactType, contact.languageCode, contact.emailAddressVerification, now.toISOString()],
    );
    if (!rows[0]) throw new Error('the insert of a contact returned nothing');
    return toContact(rows[0]);
  }

  async listContacts(companyId: number): Promise<Contact[]> {
    return (await this.q<ContactRow>(`SELECT ${CONTACT_SELECT} FROM contacts WHERE company_id = $1 ORDER BY id`, [companyId])).map(toContact);
  }

  async addNotification(n: NewNotification): Promise<Notification> {
    const rows = await this.q<NotificationRow>(
      `INSERT INTO notifications (register_number, company_id, event_code, level, texts, initial_timestamp, raised_at, closed_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::timestamptz, $7::timestamptz, $8::timestamptz) RETURNING ${NOTIFICATION_SELECT}`,
      [n.registerNumber, n.companyId, n.eventCode, n.level, JSON.stringify(n.texts), isoTime(n.initialTimestamp, 'initialTimestamp'),
        isoTime(n.raisedAt ?? n.initialTimestamp, 'raisedAt'), isoTimeOrNull(n.closedAt ?? null, 'closedAt')],
    );
    if (!rows[0]) throw new Error('the insert of a notification returned nothing');
    return toNotification(rows[0]);
  }

  async listNotifications(companyIds: readonly number[]): Promise<Notification[]> {
    if (companyIds.length === 0) return [];
    const rows = await this.q<NotificationRow>(
      `SELECT ${NOTIFICATION_SELECT} FROM notifications WHERE company_id = ANY($1::bigint[]) ORDER BY initial_timestamp DESC, id DESC`,
      [[...companyIds]],
    );
    return rows.map(toNotification);
  }

  async openNotification(registerNumber: string, eventCode: string): Promise<Notification | undefined> {
    const rows = await this.q<NotificationRow>(
      `SELECT ${NOTIFICATION_SELECT} FROM notifications WHERE register_number = $1 AND event_code = $2 AND closed_at IS NULL`, [registerNumber, eventCode]);
    return rows[0] && toNotification(rows[0]);
  }

  async openNotifications(): Promise<Notification[]> {
    return (await this.q<NotificationRow>(`SELECT ${NOTIFICATION_SELECT} FROM notifications WHERE closed_at IS NULL ORDER BY raised_at, id`)).map(toNotification);
  }

  async escalateNotification(id: number, change: { from: { level: number; raisedAt: string }; level: number; texts: Notification['texts']; raisedAt: string }): Promise<Notification | undefined> {
    // conditional on what the caller read: a concurrent UPDATE waits for the first and then no longer matches
    const rows = await this.q<NotificationRow>(
      `UPDATE notifications SET level = $1, texts = $2::jsonb, raised_at = $3::timestamptz
       WHERE id = $4 AND closed_at IS NULL AND level = $5 AND raised_at = $6::timestamptz RETURNING ${NOTIFICATION_SELECT}`,
      [change.level, JSON.stringify(change.texts), isoTime(change.raisedAt, 'raisedAt'), id, change.from.level, isoTime(change.from.raisedAt, 'from.raisedAt')]);
    return rows[0] && toNotification(rows[0]);
  }

  async reopenNotification(registerNumber: string, eventCode: string, closedSince: string): Promise<Notification | undefined> {
    const rows = await this.q<NotificationRow>(
      `UPDATE notifications SET closed_at = NULL WHERE id = (
         SELECT id FROM notifications WHERE register_number = $1 AND event_code = $2 AND closed_at IS NOT NULL AND closed_at >= $3::timestamptz
         ORDER BY closed_at DESC, id DESC LIMIT 1)
       RETURNING ${NOTIFICATION_SELECT}`,
      [registerNumber, eventCode, isoTime(closedSince, 'closedSince')]);
    return rows[0] && toNotification(rows[0]);
  }

  async claimEvent(registerNumber: string, eventId: string, at: string): Promise<boolean> {
    const rows = await this.q<{ event_id: string }>(
      `INSERT INTO recorder_events_seen (register_number, event_id, seen_at) VALUES ($1, $2, $3::timestamptz)
       ON CONFLICT (register_number, event_id) DO NOTHING RETURNING event_id`,
      [registerNumber, eventId, isoTime(at, 'at')]);
    return rows.length === 1;
  }

  async releaseEvent(registerNumber: string, eventId: string): Promise<void> {
    await this.q('DELETE FROM recorder_events_seen WHERE register_number = $1 AND event_id = $2', [registerNumber, eventId]);
  }

  async pruneEvents(before: string): Promise<number> {
    const rows = await this.q<{ event_id: string }>('DELETE FROM recorder_events_seen WHERE seen_at < $1::timestamptz RETURNING event_id', [isoTime(before, 'before')]);
    return rows.length;
  }

  async closeNotification(registerNumber: string, eventCode: string, closedAt: string): Promise<Notification | undefined> {
    const rows = await this.q<NotificationRow>(
      `UPDATE notifications SET closed_at = $1::timestamptz WHERE register_number = $2 AND event_code = $3 AND closed_at IS NULL RETURNING ${NOTIFICATION_SELECT}`,
      [isoTime(closedAt, 'closedAt'), registerNumber, eventCode]);
    return rows[0] && toNotification(rows[0]);
  }

  async touchRegister(registerNumber: string, at: string): Promise<void> {
    await this.q(
      `INSERT INTO register_contacts (register_number, last_contact_at) VALUES ($1, $2::timestamptz)
       ON CONFLICT (register_number) DO UPDATE SET last_contact_at = greatest(register_contacts.last_contact_at, excluded.last_contact_at)`,
      [registerNumber, isoTime(at, 'at')]);
  }

  async silentRegisters(before: string): Promise<RegisterContact[]> {
    const rows = await this.q<{ register_number: string; company_id: string; last_contact_at: Date }>(
      `SELECT c.register_number, r.company_id, c.last_contact_at FROM register_contacts c
       JOIN registers r ON r.register_number = c.register_number
       WHERE c.last_contact_at < $1::timestamptz AND r.state IN ('Productive', 'Test')
       ORDER BY c.last_contact_at, c.register_number COLLATE "C"`,
      [isoTime(before, 'before')]);
    return rows.map((r) => ({ registerNumber: r.register_number, companyId: int(r.company_id), lastContactAt: iso(r.last_contact_at) }));
  }

  async createClient(client: ApiClient): Promise<void> {
    await this.q(
      `INSERT INTO api_clients (${CLIENT_SELECT}) VALUES ($1, $2, $3, $4::timestamptz, $5::timestamptz)`,
      [client.clientId, client.name, client.secretHash, isoTime(client.createdAt, 'createdAt'), isoTimeOrNull(client.revokedAt, 'revokedAt')],
    );
  }

  async getClient(clientId: string): Promise<ApiClient | undefined> {
    const rows = await this.q<ClientRow>(`SELECT ${CLIENT_SELECT} FROM api_clients WHERE client_id = $1`, [clientId]);
    return rows[0] && toClient(rows[0]);
  }

  async grant(grant: Grant): Promise<void> {
    await this.q(
      'INSERT INTO grants (client_id, entity_id, permission) VALUES ($1, $2, $3) ON CONFLICT (client_id, entity_id, permission) DO NOTHING',
      [grant.clientId, grant.entityId, grant.permission],
    );
  }

  async grantsOf(clientId: string): Promise<Grant[]> {
    const rows = await this.q<{ client_id: string; entity_id: string; permission: string }>(
      'SELECT client_id, entity_id, permission FROM grants WHERE client_id = $1 ORDER BY entity_id, permission COLLATE "C"',
      [clientId],
    );
    return rows.map((r) => ({ clientId: r.client_id, entityId: int(r.entity_id), permission: r.permission as Permission }));
  }

  async putInstanceCredential(c: InstanceCredential): Promise<void> {
    await this.q('INSERT INTO recorder_credentials (token_hash, register_number, company_id, badge, created_at) VALUES ($1, $2, $3, $4, $5::timestamptz)',
      [c.tokenHash, c.registerNumber, c.companyId, c.badge, isoTime(c.createdAt, 'createdAt')]);
  }

  async instanceCredential(tokenHash: string): Promise<InstanceCredential | undefined> {
    const rows = await this.q<{ token_hash: string; register_number: string; company_id: string; badge: string; created_at: Date }>(
      'SELECT token_hash, register_number, company_id, badge, created_at FROM recorder_credentials WHERE token_hash = $1', [tokenHash]);
    const r = rows[0];
    return r && { tokenHash: r.token_hash, registerNumber: r.register_number, companyId: int(r.company_id), badge: r.badge, createdAt: new Date(r.created_at).toISOString() };
  }

  async archiveRecords(records: readonly ArchivedRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.q(
      `INSERT INTO archive_records (register_number, sq, data, hash, d, th, sig)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
       ON CONFLICT (register_number, sq) DO NOTHING`,
      [records.map((r) => r.registerNumber), records.map((r) => r.sq), records.map((r) => r.data), records.map((r) => r.hash), records.map((r) => r.d),
        records.map((r) => r.th ?? null), records.map((r) => r.sig ?? null)],
    );
  }

  async lastArchivedSq(registerNumber: string): Promise<number | undefined> {
    const rows = await this.q<{ sq: string | null }>('SELECT max(sq) AS sq FROM archive_records WHERE register_number = $1', [registerNumber]);
    const sq = rows[0]?.sq;
    return sq === null || sq === undefined ? undefined : Number(sq);
  }

  async archivedRecords(registerNumber: string, fromSq: number, toSq: number): Promise<ArchivedRecord[]> {
    const rows = await this.q<ArchiveRow>(
      'SELECT register_number, sq, data, hash, d, th, sig FROM archive_records WHERE register_number = $1 AND sq >= $2 AND sq <= $3 ORDER BY sq', [registerNumber, fromSq, toSq]);
    return rows.map(archivedOf);
  }

  async putRegisterHandle(h: RegisterHandle): Promise<string> {
    await this.q('INSERT INTO register_handles (handle, register_number, created_at) VALUES ($1, $2, $3::timestamptz) ON CONFLICT (handle) DO NOTHING',
      [h.handle, h.registerNumber, isoTime(h.createdAt, 'createdAt')]);
    const rows = await this.q<{ register_number: string }>('SELECT register_number FROM register_handles WHERE handle = $1', [h.handle]);
    return rows[0]?.register_number ?? h.registerNumber;
  }

  async registerOfHandle(handle: string): Promise<string | undefined> {
    const rows = await this.q<{ register_number: string }>('SELECT register_number FROM register_handles WHERE handle = $1', [handle]);
    return rows[0]?.register_number;
  }

  async archivedCfgBefore(registerNumber: string, beforeSq: number): Promise<ArchivedRecord | undefined> {
    // a record's JSON text starts with its type (the register service writes `_` first); the partial index holds Cfg records
    const rows = await this.q<ArchiveRow>(
      `SELECT register_number, sq, data, hash, d, th, sig FROM archive_records WHERE register_number = $1 AND sq < $2 AND substr(data, 1, 11) = '{"_":"Cfg",' ORDER BY sq DESC LIMIT 1`,
      [registerNumber, beforeSq]);
    const r = rows[0];
    return r && archivedOf(r);
  }

  async archivedRecordsByTh(registerNumber: string, th: string): Promise<ArchivedRecord[]> {
    const rows = await this.q<ArchiveRow>(
      'SELECT register_number, sq, data, hash, d, th, sig FROM archive_records WHERE register_number = $1 AND th = $2 ORDER BY sq', [registerNumber, th]);
    return rows.map(archivedOf);
  }

  async createCompanyApiKey(k: CompanyApiKey): Promise<void> {
    await this.q('INSERT INTO company_api_keys (api_key, company_id, secret_hash, name, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5::timestamptz, $6::timestamptz)',
      [k.apiKey, k.companyId, k.secretHash, k.name, isoTime(k.createdAt, 'createdAt'), isoTimeOrNull(k.revokedAt, 'revokedAt')]);
  }

  async getCompanyApiKey(apiKey: string): Promise<CompanyApiKey | undefined> {
    const rows = await this.q<CompanyApiKeyRow>(`SELECT ${COMPANY_API_KEY_SELECT} FROM company_api_keys WHERE api_key = $1`, [apiKey]);
    return rows[0] && companyApiKeyOf(rows[0]);
  }

  async listCompanyApiKeys(companyId: number): Promise<CompanyApiKey[]> {
    const rows = await this.q<CompanyApiKeyRow>(`SELECT ${COMPANY_API_KEY_SELECT} FROM company_api_keys WHERE company_id = $1 ORDER BY created_at, api_key`, [companyId]);
    return rows.map(companyApiKeyOf);
  }

  async revokeCompanyApiKey(apiKey: string, at: string): Promise<CompanyApiKey | undefined> {
    const rows = await this.q<CompanyApiKeyRow>(
      `UPDATE company_api_keys SET revoked_at = COALESCE(revoked_at, $2::timestamptz) WHERE api_key = $1 RETURNING ${COMPANY_API_KEY_SELECT}`, [apiKey, isoTime(at, 'at')]);
    return rows[0] && companyApiKeyOf(rows[0]);
  }

  async recordFirstUse(registerNumber: string, day: string): Promise<string> {
    await this.q('INSERT INTO register_first_use (register_number, first_used_on) VALUES ($1, $2) ON CONFLICT (register_number) DO NOTHING', [registerNumber, day]);
    const rows = await this.q<{ first_used_on: string }>('SELECT first_used_on FROM register_first_use WHERE register_number = $1', [registerNumber]);
    return rows[0]?.first_used_on ?? day;
  }

  private closed = false;

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
