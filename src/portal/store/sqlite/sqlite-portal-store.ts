/**
 * The portal's embedded store: one SQLite file (`<data>/portal/portal.sqlite`), WAL with synchronous=FULL
 * like the register's journal, foreign keys on. better-sqlite3 is synchronous; the methods are async only
 * to share the PortalStore interface with PostgreSQL. Writes that touch several rows run in one transaction.
 */
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { CLIENT_SELECT, CONTACT_SELECT, ENTITY_SELECT, NOTIFICATION_SELECT, REGISTER_SELECT, notificationTexts, stringRecord } from '../columns.js';
import { containsPattern } from '../like.js';
import { checkKnown } from '../migration.js';
import { pathRange } from '../scope.js';
import { entitySearchSql, registerSearchSql, searchText, totalWithoutCount, type Dialect, type SearchSql } from '../search-sql.js';
import { isoTime, isoTimeOrNull } from '../times.js';
import {
  StoreConflict, StoreReferenceMissing, StoreUnavailable,
  type ApiClient, type ArchivedRecord, type CompanyApiKey, type RegisterHandle, type InstanceCredential, type Contact, type ContactType, type Entity, type EntityKind, type EntitySearch, type EntityState, type EntityUpdate,
  type Grant, type NewContact, type NewEntity, type NewNotification, type NewRegister, type Notification, type Permission,
  type PortalStore, type ReadScope, type Register, type RegisterContact, type RegisterSearch, type RegisterState, type SearchResult,
} from '../types.js';
import { SQLITE_MIGRATIONS } from './migrations.js';

/** The Unicode lower-case function every connection registers (used by queries and by migration 2). */
export const LOWER = 'efr_lower';

export function lowerText(value: unknown): string | null {
  return typeof value === 'string' ? value.toLowerCase() : value === null || value === undefined ? null : String(value).toLowerCase();
}

const dialect: Dialect = {
  bind(params, value) {
    params.push(value);
    return '?';
  },
  time(params, iso) {
    params.push(iso);
    return '?';
  },
  // SQLite's own lower() folds ASCII only: efr_lower (JavaScript's toLowerCase, registered per connection) folds
  // all of Unicode like PostgreSQL's lower(), so that both sort and compare texts alike
  textOrder: (column) => [`${LOWER}(${column})`, column],
  lower: (expression) => `${LOWER}(${expression})`,
  exact: (column) => column,
  // the search column is lower-cased by JavaScript (all of Unicode, not only ASCII), so is the text
  contains(params, column, text) {
    params.push(containsPattern(text.toLowerCase()));
    return `${column} LIKE ? ESCAPE '\\'`;
  },
  page(params, offset, limit) {
    params.push(limit ?? -1, offset);
    return 'LIMIT ? OFFSET ?';
  },
};

interface EntityRow {
  id: number; kind: string; parent_id: number | null; path: string; name: string;
  address: string | null; city: string | null; zip: string | null; country_code: string | null;
  invoice_email_address: string | null; user_comment: string | null; state: string; test: number; badge: string | null;
  tax_id: string | null; ignore_tax_id: number; country_properties: string | null; location_identification: string | null;
  deactivate_after: string | null; created_at: string; updated_at: string;
}

interface RegisterRow {
  register_number: string; company_id: number; country_code: string | null; last_tl: string | null; last_tt: string | null;
  user_comment: string | null; first_transaction: number | null; last_transaction: number | null; version_number: string | null;
  state: string; is_cloud_efr: number; discharge_after: string | null; created_at: string; updated_at: string;
}

interface ContactRow {
  id: number; company_id: number; contact_name: string; email_address: string; contact_type: string;
  language_code: string | null; email_address_verification: string; created_at: string;
}

interface NotificationRow {
  id: number; register_number: string; company_id: number; event_code: string; level: number; texts: string; initial_timestamp: string;
  raised_at: string | null; closed_at: string | null;
}

interface ClientRow { client_id: string; name: string; secret_hash: string; created_at: string; revoked_at: string | null }

function toEntity(r: EntityRow): Entity {
  return {
    id: r.id, kind: r.kind as EntityKind, parentId: r.parent_id, path: r.path, name: r.name,
    address: r.address, city: r.city, zip: r.zip, countryCode: r.country_code, invoiceEmailAddress: r.invoice_email_address,
    userComment: r.user_comment, state: r.state as EntityState, test: r.test === 1, badge: r.badge, taxId: r.tax_id,
    ignoreTaxId: r.ignore_tax_id === 1,
    countryProperties: r.country_properties === null ? null : stringRecord(JSON.parse(r.country_properties), 'countryProperties'),
    locationIdentification: r.location_identification, deactivateAfter: r.deactivate_after, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

function toRegister(r: RegisterRow): Register {
  return {
    registerNumber: r.register_number, companyId: r.company_id, countryCode: r.country_code, lastTL: r.last_tl, lastTT: r.last_tt,
    userComment: r.user_comment, firstTransaction: r.first_transaction, lastTransaction: r.last_transaction,
    versionNumber: r.version_number, state: r.state as RegisterState, isCloudEFR: r.is_cloud_efr === 1,
    dischargeAfter: r.discharge_after, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

function toContact(r: ContactRow): Contact {
  return {
    id: r.id, companyId: r.company_id, contactName: r.contact_name, emailAddress: r.email_address, contactType: r.contact_type as ContactType,
    languageCode: r.language_code, emailAddressVerification: r.email_address_verification, createdAt: r.created_at,
  };
}

function toNotification(r: NotificationRow): Notification {
  return {
    id: r.id, registerNumber: r.register_number, companyId: r.company_id, eventCode: r.event_code, level: r.level,
    texts: notificationTexts(JSON.parse(r.texts)), initialTimestamp: r.initial_timestamp,
    raisedAt: r.raised_at ?? r.initial_timestamp, closedAt: r.closed_at,
  };
}

function toClient(r: ClientRow): ApiClient {
  return { clientId: r.client_id, name: r.name, secretHash: r.secret_hash, createdAt: r.created_at, revokedAt: r.revoked_at };
}

/** SQLite names the columns of a failed unique constraint in its message. */
const UNIQUE_FIELDS: [string, string][] = [
  ['entities.badge', 'badge'],
  ['entities.parent_id, entities.location_identification', 'locationIdentification'],
  ['entities.parent_id, entities.location_key', 'locationIdentification'],
  ['api_clients.client_id', 'clientId'],
  ['registers.register_number', 'registerNumber'],
  ['notifications.register_number, notifications.event_code', 'eventCode'],
  ['company_api_keys.api_key', 'apiKey'],
];

/** Failures worth a retry later: the file is locked by another writer beyond busy_timeout, or the disk failed. */
const TRANSIENT = /^SQLITE_(BUSY|LOCKED|IOERR)/;

function mapError(err: unknown): unknown {
  if (!(err instanceof Error) || !('code' in err)) return err;
  const code = String(err.code);
  if (TRANSIENT.test(code)) return new StoreUnavailable(`the portal database is not available: ${err.message}`, err);
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const hit = UNIQUE_FIELDS.find(([cols]) => err.message.endsWith(cols));
    if (hit) return new StoreConflict(hit[1], `${hit[1]} is already in use`);
  }
  return err;
}

function entitySearch(e: Pick<Entity, 'name' | 'userComment' | 'city' | 'address' | 'zip' | 'taxId' | 'locationIdentification' | 'badge' | 'invoiceEmailAddress'>): string {
  return searchText([e.name, e.userComment, e.city, e.address, e.zip, e.taxId, e.locationIdentification, e.badge, e.invoiceEmailAddress]);
}

function registerSearch(r: Pick<Register, 'registerNumber' | 'userComment' | 'lastTL' | 'lastTT' | 'versionNumber'>): string {
  return searchText([r.registerNumber, r.userComment, r.lastTL, r.lastTT, r.versionNumber]);
}

interface ArchiveRow { register_number: string; sq: number; data: string; hash: string; d: string | null; th: string | null; sig: string | null }

function archivedOf(r: ArchiveRow): ArchivedRecord {
  // th and sig only when stored (records of other types, and of instances that send neither, have none)
  return { registerNumber: r.register_number, sq: r.sq, data: r.data, hash: r.hash, d: r.d, ...(r.th !== null ? { th: r.th } : {}), ...(r.sig !== null ? { sig: r.sig } : {}) };
}

const COMPANY_API_KEY_SELECT = 'api_key, company_id, secret_hash, name, created_at, revoked_at';
interface CompanyApiKeyRow { api_key: string; company_id: number; secret_hash: string; name: string | null; created_at: string; revoked_at: string | null }

function companyApiKeyOf(r: CompanyApiKeyRow): CompanyApiKey {
  return { apiKey: r.api_key, companyId: r.company_id, secretHash: r.secret_hash, name: r.name, createdAt: r.created_at, revokedAt: r.revoked_at };
}

export class SqlitePortalStore implements PortalStore {
  private readonly db: Db;
  private readonly statements = new Map<string, Statement>();

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 10000');
    this.db.pragma('foreign_keys = ON');
    this.db.function(LOWER, { deterministic: true }, (value: unknown) => lowerText(value));
  }

  /** Statements are prepared at first use (the tables exist only after migrate()) and kept. */
  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (s === undefined) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /** Runs fn, turning constraint failures into StoreConflict. */
  private run<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(mapError(err));
    }
  }

  async migrate(): Promise<void> {
    // IMMEDIATE: a second process starting at the same time waits (busy_timeout) and then finds it done
    this.db.transaction(() => {
      this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
      const applied = (this.db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version);
      checkKnown(applied, SQLITE_MIGRATIONS);
      for (const m of [...SQLITE_MIGRATIONS].sort((a, b) => a.version - b.version)) {
        if (applied.includes(m.version)) continue;
        this.db.exec(m.sql);
        this.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, new Date().toISOString());
      }
    }).immediate();
  }

  private entity(id: number): Entity | undefined {
    const row = this.stmt(`SELECT ${ENTITY_SELECT} FROM entities e WHERE e.id = ?`).get(id) as EntityRow | undefined;
    return row && toEntity(row);
  }

  createEntity(entity: NewEntity, now: Date): Promise<Entity> {
    return this.run(() => this.db.transaction(() => {
      let parentPath = '/';
      if (entity.parentId !== null) {
        const parent = this.stmt('SELECT path FROM entities WHERE id = ?').get(entity.parentId) as { path: string } | undefined;
        if (!parent) throw new StoreReferenceMissing('parentId', `there is no entity ${entity.parentId}`);
        parentPath = parent.path;
      }
      const at = now.toISOString();
      const info = this.stmt(
        `INSERT INTO entities (kind, parent_id, path, name, address, city, zip, country_code, invoice_email_address, user_comment, state,
           test, badge, tax_id, ignore_tax_id, country_properties, location_identification, location_key, deactivate_after, created_at, updated_at, search)
         VALUES (@kind, @parentId, '', @name, @address, @city, @zip, @countryCode, @invoiceEmailAddress, @userComment, @state,
           @test, @badge, @taxId, @ignoreTaxId, @countryProperties, @locationIdentification, @locationKey, @deactivateAfter, @at, @at, @search)`,
      ).run({
        kind: entity.kind, parentId: entity.parentId, name: entity.name, address: entity.address, city: entity.city, zip: entity.zip,
        countryCode: entity.countryCode, invoiceEmailAddress: entity.invoiceEmailAddress, userComment: entity.userComment,
        state: entity.state, test: entity.test ? 1 : 0, badge: entity.badge, taxId: entity.taxId, ignoreTaxId: entity.ignoreTaxId ? 1 : 0,
        countryProperties: entity.countryProperties === null ? null : JSON.stringify(entity.countryProperties),
        locationIdentification: entity.locationIdentification, locationKey: lowerText(entity.locationIdentification),
        deactivateAfter: isoTimeOrNull(entity.deactivateAfter, 'deactivateAfter'), at, search: entitySearch(entity),
      });
      const id = Number(info.lastInsertRowid);
      this.stmt('UPDATE entities SET path = ? WHERE id = ?').run(`${parentPath}${id}/`, id);
      const created = this.entity(id);
      if (!created) throw new Error(`entity ${id} vanished after its insert`);
      return created;
    })());
  }

  updateEntity(id: number, update: EntityUpdate, now: Date): Promise<Entity | undefined> {
    return this.run(() => this.db.transaction(() => {
      const current = this.entity(id);
      if (!current) return undefined;
      this.stmt(
        `UPDATE entities SET name = @name, address = @address, city = @city, zip = @zip, country_code = @countryCode,
           invoice_email_address = @invoiceEmailAddress, user_comment = @userComment, state = @state, test = @test, tax_id = @taxId,
           ignore_tax_id = @ignoreTaxId, country_properties = @countryProperties, location_identification = @locationIdentification,
           location_key = @locationKey, deactivate_after = @deactivateAfter, updated_at = @at, search = @search
         WHERE id = @id`,
      ).run({
        id, name: update.name, address: update.address, city: update.city, zip: update.zip, countryCode: update.countryCode,
        invoiceEmailAddress: update.invoiceEmailAddress, userComment: update.userComment, state: update.state,
        test: (update.test ?? current.test) ? 1 : 0, taxId: update.taxId, ignoreTaxId: update.ignoreTaxId ? 1 : 0,
        countryProperties: update.countryProperties === null ? null : JSON.stringify(update.countryProperties),
        locationIdentification: update.locationIdentification, locationKey: lowerText(update.locationIdentification),
        deactivateAfter: isoTimeOrNull(update.deactivateAfter, 'deactivateAfter'), at: now.toISOString(),
        search: entitySearch({ ...update, badge: current.badge }),
      });
      return this.entity(id);
    })());
  }

  getEntity(id: number): Promise<Entity | undefined> {
    return this.run(() => this.entity(id));
  }

  descendantIds(id: number): Promise<number[]> {
    return this.run(() => {
      const e = this.entity(id);
      if (!e) return [];
      const r = pathRange(e.path);
      const rows = this.stmt('SELECT id FROM entities WHERE path >= ? AND path < ? AND id <> ? ORDER BY id').all(r.from, r.to, id) as { id: number }[];
      return rows.map((x) => x.id);
    });
  }

  private search<Row, T>(from: string, select: string, s: SearchSql | null, q: { offset: number; limit: number | null }, map: (r: Row) => T): SearchResult<T> {
    if (s === null) return { items: [], totalCount: 0 };
    // one read transaction: the page and the count see the same rows
    return this.db.transaction(() => {
      const rows = this.stmt(`SELECT ${select} FROM ${from} ${s.where} ${s.order} ${s.page}`).all(...s.pageParams) as Row[];
      const totalCount = totalWithoutCount(q.offset, q.limit, rows.length)
        ?? (this.stmt(`SELECT count(*) AS n FROM ${from} ${s.where}`).get(...s.whereParams) as { n: number }).n;
      return { items: rows.map(map), totalCount };
    })();
  }

  searchEntities(query: EntitySearch, scope: ReadScope): Promise<SearchResult<Entity>> {
    return this.run(() => this.search('entities e', ENTITY_SELECT, entitySearchSql(dialect, query, scope), query, toEntity));
  }

  setDeactivateAfter(id: number, at: string | null, now: Date): Promise<void> {
    return this.run(() => {
      this.stmt('UPDATE entities SET deactivate_after = ?, updated_at = ? WHERE id = ?').run(isoTimeOrNull(at, 'deactivateAfter'), now.toISOString(), id);
    });
  }

  deactivateSubtree(id: number, registerState: RegisterState, now: Date): Promise<{ entities: number[]; registers: string[] }> {
    return this.run(() => this.db.transaction(() => {
      const target = this.entity(id);
      if (!target) return { entities: [], registers: [] };
      const at = now.toISOString();
      const r = pathRange(target.path);
      const entities = (this.stmt(
        "UPDATE entities SET state = 'Deactivated', updated_at = ? WHERE path >= ? AND path < ? AND state <> 'Deactivated' RETURNING id",
      ).all(at, r.from, r.to) as { id: number }[]).map((x) => x.id);
      // a Discharged register stays so; one already in the asked state is not changed
      const rows = target.kind === 'location'
        ? this.stmt(
          `UPDATE registers SET state = ?, updated_at = ? WHERE company_id = ? AND ${LOWER}(last_tl) = ?
             AND state NOT IN ('Discharged', ?) RETURNING register_number`,
        ).all(registerState, at, target.parentId, lowerText(target.locationIdentification), registerState)
        : this.stmt(
          `UPDATE registers SET state = ?, updated_at = ?
             WHERE company_id IN (SELECT id FROM entities WHERE kind = 'company' AND path >= ? AND path < ?)
             AND state NOT IN ('Discharged', ?) RETURNING register_number`,
        ).all(registerState, at, r.from, r.to, registerState);
      const registers = (rows as { register_number: string }[]).map((x) => x.register_number);
      return { entities: entities.sort((a, b) => a - b), registers: registers.sort() };
    })());
  }

  dueDeactivations(now: Date): Promise<number[]> {
    return this.run(() => (this.stmt(
      "SELECT id FROM entities WHERE deactivate_after IS NOT NULL AND deactivate_after <= ? AND state <> 'Deactivated' ORDER BY deactivate_after, id",
    ).all(now.toISOString()) as { id: number }[]).map((x) => x.id));
  }

  private register(registerNumber: string): Register | undefined {
    const row = this.stmt(`SELECT ${REGISTER_SELECT} FROM registers r WHERE r.register_number = ?`).get(registerNumber) as RegisterRow | undefined;
    return row && toRegister(row);
  }

  putRegister(register: NewRegister, now: Date): Promise<Register> {
    return this.run(() => this.db.transaction(() => {
      if (this.stmt('SELECT 1 FROM entities WHERE id = ?').get(register.companyId) === undefined) {
        throw new StoreReferenceMissing('companyId', `there is no entity ${register.companyId}`);
      }
      this.stmt(
        `INSERT INTO registers (register_number, company_id, country_code, last_tl, last_tt, user_comment, first_transaction, last_transaction,
           version_number, state, is_cloud_efr, discharge_after, created_at, updated_at, search)
         VALUES (@registerNumber, @companyId, @countryCode, @lastTL, @lastTT, @userComment, @firstTransaction, @lastTransaction,
           @versionNumber, @state, @isCloudEFR, @dischargeAfter, @at, @at, @search)
         ON CONFLICT (register_number) DO UPDATE SET company_id = excluded.company_id, country_code = excluded.country_code,
           last_tl = excluded.last_tl, last_tt = excluded.last_tt, user_comment = excluded.user_comment,
           first_transaction = excluded.first_transaction, last_transaction = excluded.last_transaction,
           version_number = excluded.version_number, state = excluded.state, is_cloud_efr = excluded.is_cloud_efr,
           discharge_after = excluded.discharge_after, updated_at = excluded.updated_at, search = excluded.search`,
      ).run({
        registerNumber: register.registerNumber, companyId: register.companyId, countryCode: register.countryCode,
        lastTL: register.lastTL, lastTT: register.lastTT, userComment: register.userComment,
        firstTransaction: register.firstTransaction, lastTransaction: register.lastTransaction, versionNumber: register.versionNumber,
        state: register.state, isCloudEFR: register.isCloudEFR ? 1 : 0, dischargeAfter: isoTimeOrNull(register.dischargeAfter, 'dischargeAfter'),
        at: now.toISOString(), search: registerSearch(register),
      });
      const stored = this.register(register.registerNumber);
      if (!stored) throw new Error(`register ${register.registerNumber} vanished after its insert`);
      return stored;
    })());
  }

  getRegister(registerNumber: string): Promise<Register | undefined> {
    return this.run(() => this.register(registerNumber));
  }

  searchRegisters(query: RegisterSearch, scope: ReadScope): Promise<SearchResult<Register>> {
    return this.run(() => this.search('registers r JOIN entities c ON c.id = r.company_id', REGISTER_SELECT, registerSearchSql(dialect, query, scope), query, toRegister));
  }

  setRegisterState(registerNumber: string, state: RegisterState, dischargeAfter: string | null, now: Date): Promise<Register | undefined> {
    return this.run(() => {
      this.stmt('UPDATE registers SET state = ?, discharge_after = ?, updated_at = ? WHERE register_number = ?')
        .run(state, isoTimeOrNull(dischargeAfter, 'dischargeAfter'), now.toISOString(), registerNumber);
      return this.register(registerNumber);
    });
  }

  dueDischarges(now: Date): Promise<string[]> {
    return this.run(() => (this.stmt(
      "SELECT register_number FROM registers WHERE discharge_after IS NOT NULL AND discharge_after <= ? AND state <> 'Discharged' ORDER BY discharge_after, register_number",
    ).all(now.toISOString()) as { register_number: string }[]).map((x) => x.register_number));
  }

  createContact(contact: NewContact, now: Date): Promise<Contact> {
    return this.run(() => this.db.transaction(() => {
      if (this.stmt('SELECT 1 FROM entities WHERE id = ?').get(contact.companyId) === undefined) {
        throw new StoreReferenceMissing('companyId', `there is no entity ${contact.companyId}`);
      }
      const row = this.stmt(
        `INSERT INTO contacts (company_id, contact_name, email_address, contact_type, language_code, email_address_verification, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${CONTACT_SELECT}`,
      ).get(contact.companyId, contact.contactName, contact.emailAddress, contact.contactType, contact.languageCode,
        contact.emailAddressVerification, now.toISOString()) as ContactRow;
      return toContact(row);
    })());
  }

  listContacts(companyId: number): Promise<Contact[]> {
    return this.run(() => (this.stmt(`SELECT ${CONTACT_SELECT} FROM contacts WHERE company_id = ? ORDER BY id`).all(companyId) as ContactRow[]).map(toContact));
  }

  addNotification(n: NewNotification): Promise<Notification> {
    return this.run(() => this.db.transaction(() => {
      if (this.stmt('SELECT 1 FROM entities WHERE id = ?').get(n.companyId) === undefined) {
        throw new StoreReferenceMissing('companyId', `there is no entity ${n.companyId}`);
      }
      const row = this.stmt(
        `INSERT INTO notifications (register_number, company_id, event_code, level, texts, initial_timestamp, raised_at, closed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${NOTIFICATION_SELECT}`,
      ).get(n.registerNumber, n.companyId, n.eventCode, n.level, JSON.stringify(n.texts), isoTime(n.initialTimestamp, 'initialTimestamp'),
        isoTime(n.raisedAt ?? n.initialTimestamp, 'raisedAt'), isoTimeOrNull(n.closedAt ?? null, 'closedAt')) as NotificationRow;
      return toNotification(row);
    })());
  }

  listNotifications(companyIds: readonly number[]): Promise<Notification[]> {
    return this.run(() => {
      if (companyIds.length === 0) return [];
      // one bound parameter whatever the number of companies
      return (this.stmt(
        `SELECT ${NOTIFICATION_SELECT} FROM notifications WHERE company_id IN (SELECT value FROM json_each(?))
         ORDER BY initial_timestamp DESC, id DESC`,
      ).all(JSON.stringify(companyIds)) as NotificationRow[]).map(toNotification);
    });
  }

  openNotification(registerNumber: string, eventCode: string): Promise<Notification | undefined> {
    return this.run(() => {
      const row = this.stmt(`SELECT ${NOTIFICATION_SELECT} FROM notifications WHERE register_number = ? AND event_code = ? AND closed_at IS NULL`)
        .get(registerNumber, eventCode) as NotificationRow | undefined;
      return row && toNotification(row);
    });
  }

  openNotifications(): Promise<Notification[]> {
    return this.run(() => (this.stmt(`SELECT ${NOTIFICATION_SELECT} FROM notifications WHERE closed_at IS NULL ORDER BY raised_at, id`)
      .all() as NotificationRow[]).map(toNotification));
  }

  escalateNotification(id: number, change: { from: { level: number; raisedAt: string }; level: number; texts: Notification['texts']; raisedAt: string }): Promise<Notification | undefined> {
    return this.run(() => {
      // conditional on what the caller read: of two processes escalating at once, one changes it
      const row = this.stmt(`UPDATE notifications SET level = ?, texts = ?, raised_at = ?
        WHERE id = ? AND closed_at IS NULL AND level = ? AND raised_at = ? RETURNING ${NOTIFICATION_SELECT}`)
        .get(change.level, JSON.stringify(change.texts), isoTime(change.raisedAt, 'raisedAt'), id, change.from.level,
          isoTime(change.from.raisedAt, 'from.raisedAt')) as NotificationRow | undefined;
      return row && toNotification(row);
    });
  }

  reopenNotification(registerNumber: string, eventCode: string, closedSince: string): Promise<Notification | undefined> {
    return this.run(() => {
      const row = this.stmt(`UPDATE notifications SET closed_at = NULL WHERE id = (
          SELECT id FROM notifications WHERE register_number = ? AND event_code = ? AND closed_at IS NOT NULL AND closed_at >= ?
          ORDER BY closed_at DESC, id DESC LIMIT 1)
        RETURNING ${NOTIFICATION_SELECT}`)
        .get(registerNumber, eventCode, isoTime(closedSince, 'closedSince')) as NotificationRow | undefined;
      return row && toNotification(row);
    });
  }

  claimEvent(registerNumber: string, eventId: string, at: string): Promise<boolean> {
    return this.run(() => this.stmt('INSERT INTO recorder_events_seen (register_number, event_id, seen_at) VALUES (?, ?, ?) ON CONFLICT (register_number, event_id) DO NOTHING')
      .run(registerNumber, eventId, isoTime(at, 'at')).changes === 1);
  }

  releaseEvent(registerNumber: string, eventId: string): Promise<void> {
    return this.run(() => {
      this.stmt('DELETE FROM recorder_events_seen WHERE register_number = ? AND event_id = ?').run(registerNumber, eventId);
    });
  }

  pruneEvents(before: string): Promise<number> {
    return this.run(() => this.stmt('DELETE FROM recorder_events_seen WHERE seen_at < ?').run(isoTime(before, 'before')).changes);
  }

  closeNotification(registerNumber: string, eventCode: string, closedAt: string): Promise<Notification | undefined> {
    return this.run(() => {
      const row = this.stmt(`UPDATE notifications SET closed_at = ? WHERE register_number = ? AND event_code = ? AND closed_at IS NULL RETURNING ${NOTIFICATION_SELECT}`)
        .get(isoTime(closedAt, 'closedAt'), registerNumber, eventCode) as NotificationRow | undefined;
      return row && toNotification(row);
    });
  }

  touchRegister(registerNumber: string, at: string): Promise<void> {
    return this.run(() => {
      // ISO UTC texts of one format compare like the times they name
      this.stmt(`INSERT INTO register_contacts (register_number, last_contact_at) VALUES (?, ?)
        ON CONFLICT (register_number) DO UPDATE SET last_contact_at = max(last_contact_at, excluded.last_contact_at)`)
        .run(registerNumber, isoTime(at, 'at'));
    });
  }

  silentRegisters(before: string): Promise<RegisterContact[]> {
    return this.run(() => (this.stmt(`SELECT c.register_number, r.company_id, c.last_contact_at FROM register_contacts c
        JOIN registers r ON r.register_number = c.register_number
        WHERE c.last_contact_at < ? AND r.state IN ('Productive', 'Test') ORDER BY c.last_contact_at, c.register_number`)
      .all(isoTime(before, 'before')) as { register_number: string; company_id: number; last_contact_at: string }[])
      .map((r) => ({ registerNumber: r.register_number, companyId: r.company_id, lastContactAt: r.last_contact_at })));
  }

  createClient(client: ApiClient): Promise<void> {
    return this.run(() => {
      this.stmt(`INSERT INTO api_clients (${CLIENT_SELECT}) VALUES (?, ?, ?, ?, ?)`).run(
        client.clientId, client.name, client.secretHash, isoTime(client.createdAt, 'createdAt'), isoTimeOrNull(client.revokedAt, 'revokedAt'),
      );
    });
  }

  getClient(clientId: string): Promise<ApiClient | undefined> {
    return this.run(() => {
      const row = this.stmt(`SELECT ${CLIENT_SELECT} FROM api_clients WHERE client_id = ?`).get(clientId) as ClientRow | undefined;
      return row && toClient(row);
    });
  }

  grant(grant: Grant): Promise<void> {
    return this.run(() => this.db.transaction(() => {
      if (this.stmt('SELECT 1 FROM api_clients WHERE client_id = ?').get(grant.clientId) === undefined) {
        throw new StoreReferenceMissing('clientId', `there is no API client ${grant.clientId}`);
      }
      if (this.stmt('SELECT 1 FROM entities WHERE id = ?').get(grant.entityId) === undefined) {
        throw new StoreReferenceMissing('entityId', `there is no entity ${grant.entityId}`);
      }
      this.stmt('INSERT INTO grants (client_id, entity_id, permission) VALUES (?, ?, ?) ON CONFLICT (client_id, entity_id, permission) DO NOTHING')
        .run(grant.clientId, grant.entityId, grant.permission);
    })());
  }

  grantsOf(clientId: string): Promise<Grant[]> {
    return this.run(() => (this.stmt('SELECT client_id, entity_id, permission FROM grants WHERE client_id = ? ORDER BY entity_id, permission')
      .all(clientId) as { client_id: string; entity_id: number; permission: string }[])
      .map((r) => ({ clientId: r.client_id, entityId: r.entity_id, permission: r.permission as Permission })));
  }

  putInstanceCredential(c: InstanceCredential): Promise<void> {
    return this.run(() => {
      this.stmt('INSERT INTO recorder_credentials (token_hash, register_number, company_id, badge, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(c.tokenHash, c.registerNumber, c.companyId, c.badge, isoTime(c.createdAt, 'createdAt'));
    });
  }

  instanceCredential(tokenHash: string): Promise<InstanceCredential | undefined> {
    return this.run(() => {
      const r = this.stmt('SELECT token_hash, register_number, company_id, badge, created_at FROM recorder_credentials WHERE token_hash = ?').get(tokenHash) as
        { token_hash: string; register_number: string; company_id: number; badge: string; created_at: string } | undefined;
      return r && { tokenHash: r.token_hash, registerNumber: r.register_number, companyId: r.company_id, badge: r.badge, createdAt: r.created_at };
    });
  }

  archiveRecords(records: readonly ArchivedRecord[]): Promise<void> {
    return this.run(() => this.db.transaction(() => {
      const insert = this.stmt('INSERT INTO archive_records (register_number, sq, data, hash, d, th, sig) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (register_number, sq) DO NOTHING');
      for (const r of records) insert.run(r.registerNumber, r.sq, r.data, r.hash, r.d, r.th ?? null, r.sig ?? null);
    })());
  }

  lastArchivedSq(registerNumber: string): Promise<number | undefined> {
    return this.run(() => (this.stmt('SELECT max(sq) AS sq FROM archive_records WHERE register_number = ?').get(registerNumber) as { sq: number | null }).sq ?? undefined);
  }

  archivedRecords(registerNumber: string, fromSq: number, toSq: number): Promise<ArchivedRecord[]> {
    return this.run(() => (this.stmt('SELECT register_number, sq, data, hash, d, th, sig FROM archive_records WHERE register_number = ? AND sq >= ? AND sq <= ? ORDER BY sq')
      .all(registerNumber, fromSq, toSq) as ArchiveRow[]).map(archivedOf));
  }

  putRegisterHandle(h: RegisterHandle): Promise<string> {
    return this.run(() => {
      this.stmt('INSERT INTO register_handles (handle, register_number, created_at) VALUES (?, ?, ?) ON CONFLICT (handle) DO NOTHING')
        .run(h.handle, h.registerNumber, isoTime(h.createdAt, 'createdAt'));
      return (this.stmt('SELECT register_number FROM register_handles WHERE handle = ?').get(h.handle) as { register_number: string }).register_number;
    });
  }

  registerOfHandle(handle: string): Promise<string | undefined> {
    return this.run(() => (this.stmt('SELECT register_number FROM register_handles WHERE handle = ?').get(handle) as { register_number: string } | undefined)?.register_number);
  }

  archivedCfgBefore(registerNumber: string, beforeSq: number): Promise<ArchivedRecord | undefined> {
    // a record's JSON text starts with its type (the register service writes `_` first); the partial index holds Cfg records
    return this.run(() => {
      const r = this.stmt(`SELECT register_number, sq, data, hash, d, th, sig FROM archive_records WHERE register_number = ? AND sq < ? AND substr(data, 1, 11) = '{"_":"Cfg",' ORDER BY sq DESC LIMIT 1`)
        .get(registerNumber, beforeSq) as ArchiveRow | undefined;
      return r && archivedOf(r);
    });
  }

  archivedRecordsByTh(registerNumber: string, th: string): Promise<ArchivedRecord[]> {
    return this.run(() => (this.stmt('SELECT register_number, sq, data, hash, d, th, sig FROM archive_records WHERE register_number = ? AND th = ? ORDER BY sq')
      .all(registerNumber, th) as ArchiveRow[]).map(archivedOf));
  }

  createCompanyApiKey(k: CompanyApiKey): Promise<void> {
    return this.run(() => this.db.transaction(() => {
      if (this.stmt('SELECT 1 FROM entities WHERE id = ?').get(k.companyId) === undefined) {
        throw new StoreReferenceMissing('companyId', `there is no entity ${k.companyId}`);
      }
      this.stmt('INSERT INTO company_api_keys (api_key, company_id, secret_hash, name, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(k.apiKey, k.companyId, k.secretHash, k.name, isoTime(k.createdAt, 'createdAt'), isoTimeOrNull(k.revokedAt, 'revokedAt'));
    })());
  }

  getCompanyApiKey(apiKey: string): Promise<CompanyApiKey | undefined> {
    return this.run(() => {
      const r = this.stmt(`SELECT ${COMPANY_API_KEY_SELECT} FROM company_api_keys WHERE api_key = ?`).get(apiKey) as CompanyApiKeyRow | undefined;
      return r && companyApiKeyOf(r);
    });
  }

  listCompanyApiKeys(companyId: number): Promise<CompanyApiKey[]> {
    return this.run(() => (this.stmt(`SELECT ${COMPANY_API_KEY_SELECT} FROM company_api_keys WHERE company_id = ? ORDER BY created_at, api_key`)
      .all(companyId) as CompanyApiKeyRow[]).map(companyApiKeyOf));
  }

  revokeCompanyApiKey(apiKey: string, at: string): Promise<CompanyApiKey | undefined> {
    return this.run(() => {
      this.stmt('UPDATE company_api_keys SET revoked_at = ? WHERE api_key = ? AND revoked_at IS NULL').run(isoTime(at, 'at'), apiKey);
      const r = this.stmt(`SELECT ${COMPANY_API_KEY_SELECT} FROM company_api_keys WHERE api_key = ?`).get(apiKey) as CompanyApiKeyRow | undefined;
      return r && companyApiKeyOf(r);
    });
  }

  recordFirstUse(registerNumber: string, day: string): Promise<string> {
    return this.run(() => {
      this.stmt('INSERT INTO register_first_use (register_number, first_used_on) VALUES (?, ?) ON CONFLICT (register_number) DO NOTHING').run(registerNumber, day);
      return (this.stmt('SELECT first_used_on FROM register_first_use WHERE register_number = ?').get(registerNumber) as { first_used_on: string }).first_used_on;
    });
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
