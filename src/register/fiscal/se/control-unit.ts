/**
 * The control unit (kontrollenhet, SKVFS 2009:2) a Swedish register signs every receipt with, behind the
 * `ControlUnit` interface: the software control unit here, or a certified control unit's driver that
 * implements the same interface. The software unit is an ECDSA P-256 key per register in
 * `se/<RN>/control-unit.key.pem` (mode 0600; the public key of every unit the register used stays in
 * `se/<RN>/units/<id>.pub.pem`, for the exports); its manufacturing number (tillverkningsnummer) is `EFRSE`
 * and the first 12 hex digits (upper case) of the SHA-256 of its public key (DER SubjectPublicKeyInfo), so
 * that a unit is known by its key. It signs the
 * control data with SHA-256, the signature plain r‖s (64 bytes). A unit whose key file is gone does not
 * answer: no receipt is made without it. Its limits (it is no certified unit, its key is a file) are in
 * docs/countries/se.md.
 */
import { type KeyObject, createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FiscalError } from '../../../shared/errors.js';
import { writeFileAtomic } from '../../../shared/files.js';
import { safeSegment } from '../country-files.js';

export interface ControlUnit {
  /** the manufacturing number (tillverkningsnummer), printed on every receipt and the export's keyVersion */
  readonly id: string;
  /** the public key that verifies its signatures (SPKI PEM) */
  readonly publicKeyPem: string;
  available(): boolean;
  /** the signature of the control data; undefined when the unit does not answer */
  sign(controlData: Buffer): Buffer | undefined;
}

/** How the module reaches a register's control unit: the software unit here, or a certified unit's driver. */
export type ControlUnitOpener = (dataDir: string, rn: string, mayCreate: boolean) => ControlUnit;

export const KEY_FILE = 'control-unit.key.pem';
const UNITS = 'units';

/** True for a software control unit's manufacturing number (`EFRSE` and 12 hex digits of its key's hash). */
export function isSoftwareUnitId(id: string): boolean {
  return /^EFRSE[0-9A-F]{12}$/.test(id);
}

/** The manufacturing number of a software control unit with this public key. */
export function softwareUnitId(publicKey: KeyObject): string {
  return `EFRSE${createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 12).toUpperCase()}`;
}

class SoftwareControlUnit implements ControlUnit {
  readonly id: string;
  readonly publicKeyPem: string;
  constructor(private readonly keyFile: string, private readonly key: KeyObject) {
    const pub = createPublicKey(key);
    this.id = softwareUnitId(pub);
    this.publicKeyPem = pub.export({ type: 'spki', format: 'pem' }) as string;
  }
  available(): boolean {
    return existsSync(this.keyFile);
  }
  sign(controlData: Buffer): Buffer | undefined {
    if (!this.available()) return undefined;
    return sign('sha256', controlData, { key: this.key, dsaEncoding: 'ieee-p1363' });
  }
}

/** The folder of a register's control unit. */
export function controlUnitDir(dataDir: string, rn: string): string {
  return join(dataDir, 'se', safeSegment(rn));
}

const opened = new Map<string, ControlUnit>();

/**
 * The register's software control unit. Made at the first use when `mayCreate` (the register has signed
 * nothing yet); a key that is gone after the register signed with it is never replaced silently: a new
 * key would be another unit under the receipts already printed (#DEVICE_FAILED until the backup is restored).
 */
export function openControlUnit(dataDir: string, rn: string, mayCreate: boolean): ControlUnit {
  const dir = controlUnitDir(dataDir, rn);
  const keyFile = join(dir, KEY_FILE);
  const known = opened.get(dir);
  if (known && known.available()) return known;
  opened.delete(dir);
  if (!existsSync(keyFile)) {
    if (!mayCreate) {
      throw new FiscalError('#DEVICE_FAILED', { value: `${keyFile} (the control unit's key is missing, but the register's receipts were signed with it: restore it from a backup)` });
    }
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    try {
      // exclusive: two processes on one data folder keep the first key
      writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as { code?: string }).code !== 'EEXIST') throw e;
    }
  }
  const unit = new SoftwareControlUnit(keyFile, createPrivateKey(readFileSync(keyFile)));
  const pubFile = join(dir, UNITS, `${unit.id}.pub.pem`);
  if (!existsSync(pubFile)) {
    mkdirSync(join(dir, UNITS), { recursive: true, mode: 0o700 });
    writeFileAtomic(pubFile, unit.publicKeyPem, 0o644);
  }
  opened.set(dir, unit);
  return unit;
}

/** The public keys (SPKI PEM) of every control unit the register used, by manufacturing number. */
export function unitPublicKeys(dataDir: string, rn: string): Map<string, string> {
  const dir = join(controlUnitDir(dataDir, rn), UNITS);
  const keys = new Map<string, string>();
  if (!existsSync(dir)) return keys;
  for (const name of readdirSync(dir).sort()) {
    const m = /^(.+)\.pub\.pem$/.exec(name);
    if (m) keys.set(m[1] as string, readFileSync(join(dir, name), 'utf8'));
  }
  return keys;
}
