/**
 * The SQLite schema of the portal, as versioned migrations (never edit an applied one: add the next).
 * Every id sequence starts at 2 (sqlite_sequence seeded with 1); AUTOINCREMENT never reuses an id.
 * `search` is the lower-cased text that searchText looks in, kept by the store on every write.
 * `efr_lower` is JavaScript's toLowerCase, registered on every connection by the store.
 */
import type { Migration } from '../migration.js';

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'entities, registers, contacts, notifications, clients, grants',
    sql: `
CREATE TABLE entities (
  id INTEGER PRIMARY KEY AUTOINCREMENT CHECK (id >= 2),
  kind TEXT NOT NULL CHECK (kind IN ('organization', 'company', 'location')),
  parent_id INTEGER REFERENCES entities (id),
  path TEXT NOT NULL,
  name TEXT NOT NULL,
  address TEXT,
  city TEXT,
  zip TEXT,
  country_code TEXT,
  invoice_email_address TEXT,
  user_comment TEXT,
  state TEXT NOT NULL CHECK (state IN ('Productive', 'Test', 'Deactivated')),
  test INTEGER NOT NULL CHECK (test IN (0, 1)),
  badge TEXT UNIQUE,
  tax_id TEXT,
  ignore_tax_id INTEGER NOT NULL CHECK (ignore_tax_id IN (0, 1)),
  country_properties TEXT,
  location_identification TEXT,
  deactivate_after TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  search TEXT NOT NULL,
  UNIQUE (parent_id, location_identification)
);
INSERT INTO sqlite_sequence (name, seq) VALUES ('entities', 1);
CREATE INDEX entities_path ON entities (path);
CREATE INDEX entities_parent ON entities (parent_id);
CREATE INDEX entities_kind_name ON entities (kind, lower(name), name, id);
CREATE INDEX entities_due ON entities (deactivate_after) WHERE deactivate_after IS NOT NULL;

CREATE TABLE registers (
  register_number TEXT PRIMARY KEY,
  company_id INTEGER NOT NULL REFERENCES entities (id),
  country_code TEXT,
  last_tl TEXT,
  last_tt TEXT,
  user_comment TEXT,
  first_transaction INTEGER,
  last_transaction INTEGER,
  version_number TEXT,
  state TEXT NOT NULL CHECK (state IN ('Productive', 'Test', 'Deactivated', 'Discharged')),
  is_cloud_efr INTEGER NOT NULL CHECK (is_cloud_efr IN (0, 1)),
  discharge_after TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  search TEXT NOT NULL
);
CREATE INDEX registers_company ON registers (company_id, last_tl);
CREATE INDEX registers_due ON registers (discharge_after) WHERE discharge_after IS NOT NULL;

CREATE TABLE contacts (
  id INTEGER PRIMARY KEY AUTOINCREMENT CHECK (id >= 2),
  company_id INTEGER NOT NULL REFERENCES entities (id),
  contact_name TEXT NOT NULL,
  email_address TEXT NOT NULL,
  contact_type TEXT NOT NULL CHECK (contact_type IN ('InvoiceContact', 'TechnicalContact', 'CommercialContact', 'ElsterContact', 'Unknown')),
  language_code TEXT,
  email_address_verification TEXT NOT NULL,
  created_at TEXT NOT NULL
);
INSERT INTO sqlite_sequence (name, seq) VALUES ('contacts', 1);
CREATE INDEX contacts_company ON contacts (company_id, id);

CREATE TABLE notifications (
  id INTEGER PRIMARY KEY AUTOINCREMENT CHECK (id >= 2),
  register_number TEXT NOT NULL,
  company_id INTEGER NOT NULL REFERENCES entities (id),
  event_code TEXT NOT NULL,
  level INTEGER NOT NULL,
  texts TEXT NOT NULL,
  initial_timestamp TEXT NOT NULL
);
INSERT INTO sqlite_sequence (name, seq) VALUES ('notifications', 1);
CREATE INDEX notifications_company ON notifications (company_id, initial_timestamp);

CREATE TABLE api_clients (
  client_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);

CREATE TABLE grants (
  client_id TEXT NOT NULL REFERENCES api_clients (client_id),
  entity_id INTEGER NOT NULL REFERENCES entities (id),
  permission TEXT NOT NULL CHECK (permission IN ('ReadCompany', 'ManageCompany', 'ReadRegister', 'ManageRegister')),
  PRIMARY KEY (client_id, entity_id, permission)
);
CREATE INDEX grants_entity ON grants (entity_id);
`,
  },
  {
    version: 2,
    name: 'locationIdentification unique per company regardless of case; Unicode lower-case sorting',
    // location_key is the identification lower-cased by JavaScript (efr_lower, registered by the store on every
    // connection), kept by the store on every write. A database that already holds two identifications of one
    // company differing only in case refuses this migration (UNIQUE constraint failed): rename one first.
    // entities_kind_name sorted by SQLite's ASCII-only lower(); sorting now uses efr_lower, which no index holds.
    sql: `
ALTER TABLE entities ADD COLUMN location_key TEXT;
UPDATE entities SET location_key = efr_lower(location_identification) WHERE location_identification IS NOT NULL;
CREATE UNIQUE INDEX entities_location_ci ON entities (parent_id, location_key);
DROP INDEX entities_kind_name;
`,
  },
  {
    version: 3,
    name: 'recorder: instance credentials, journal archive, first use of registers',
    sql: `
CREATE TABLE recorder_credentials (
  token_hash TEXT PRIMARY KEY,
  register_number TEXT NOT NULL,
  company_id INTEGER NOT NULL REFERENCES entities (id),
  badge TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX recorder_credentials_register ON recorder_credentials (register_number);
CREATE TABLE archive_records (
  register_number TEXT NOT NULL,
  sq INTEGER NOT NULL CHECK (sq >= 1),
  data TEXT NOT NULL,
  hash TEXT NOT NULL,
  d TEXT,
  PRIMARY KEY (register_number, sq)
);
CREATE TABLE register_first_use (
  register_number TEXT PRIMARY KEY,
  first_used_on TEXT NOT NULL
);
`,
  },
  {
    version: 4,
    name: 'notifications: open or closed, one open per register and event code; last contact of registers',
    // notifications made before this version count as raised at their initial time; of several for one register
    // and event code only the newest stays open
    sql: `
ALTER TABLE notifications ADD COLUMN raised_at TEXT;
ALTER TABLE notifications ADD COLUMN closed_at TEXT;
UPDATE notifications SET raised_at = initial_timestamp;
UPDATE notifications SET closed_at = initial_timestamp
  WHERE id NOT IN (SELECT max(id) FROM notifications GROUP BY register_number, event_code);
CREATE UNIQUE INDEX notifications_open ON notifications (register_number, event_code) WHERE closed_at IS NULL;
CREATE TABLE register_contacts (
  register_number TEXT PRIMARY KEY,
  last_contact_at TEXT NOT NULL
);
CREATE INDEX register_contacts_last ON register_contacts (last_contact_at);
`,
  },
  {
    version: 5,
    name: 'digital receipts: register handles, transaction handles and signatures of archived receipts',
    sql: `
CREATE TABLE register_handles (
  handle TEXT PRIMARY KEY,
  register_number TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX register_handles_register ON register_handles (register_number);
ALTER TABLE archive_records ADD COLUMN th TEXT;
ALTER TABLE archive_records ADD COLUMN sig TEXT;
CREATE INDEX archive_records_th ON archive_records (register_number, th) WHERE th IS NOT NULL;
CREATE INDEX archive_records_cfg ON archive_records (register_number, sq) WHERE substr(data, 1, 11) = '{"_":"Cfg",';
`,
  },
  {
    version: 6,
    name: 'cloud API keys of companies (key id, company, SHA-256 of the secret, name, created, revoked)',
    sql: `
CREATE TABLE company_api_keys (
  api_key TEXT PRIMARY KEY,
  company_id INTEGER NOT NULL REFERENCES entities (id),
  secret_hash TEXT NOT NULL,
  name TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX company_api_keys_company ON company_api_keys (company_id, created_at);
`,
  },
  {
    version: 7,
    name: 'recorder events: ids of processed events per register (a resent event is not processed twice)',
    sql: `
CREATE TABLE recorder_events_seen (
  register_number TEXT NOT NULL,
  event_id TEXT NOT NULL,
  seen_at TEXT NOT NULL,
  PRIMARY KEY (register_number, event_id)
);
CREATE INDEX recorder_events_seen_at ON recorder_events_seen (seen_at);
`,
  },
];
