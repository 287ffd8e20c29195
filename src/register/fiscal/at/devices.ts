/**
 * RKSV signature devices in software: per cashbox, devices `device-<n>` in the data folder, each a
 * P-256 key (`key.pem`) with a self-issued certificate (`certificate.der`). As a closed system (ZDA id
 * AT0) the receipts name the device by its key id `<Ordnungsbegriff>-K<n>`, and the DEP's container
 * carries its public key. A device whose key file is gone has failed: receipts are then marked
 * "Sicherheitseinrichtung ausgefallen". A smartcard or HSM driver implements the same interface.
 */
import { createPrivateKey, createPublicKey, randomBytes, sign, webcrypto, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeFileAtomic as writeAtomic } from '../../../shared/files.js';
import { join } from 'node:path';
import { FiscalError } from '../../../shared/errors.js';
import { x509Module } from '../../../shared/lazy-modules.js';

export interface SignatureDevice {
  /** the key id the receipts name (field "Zertifikat-Seriennummer" of the code for AT0) */
  readonly keyId: string;
  /** the public key, SubjectPublicKeyInfo DER */
  readonly publicKey: Buffer;
  /** whether the device can sign now, without signing */
  available(): boolean;
  /** ES256 signature (r‖s) over the input; undefined when the device has failed */
  sign(input: string): Buffer | undefined;
}

class SoftwareDevice implements SignatureDevice {
  constructor(
    private readonly keyFile: string,
    private readonly key: KeyObject,
    readonly keyId: string,
    readonly publicKey: Buffer,
  ) {}

  available(): boolean {
    return existsSync(this.keyFile);
  }

  sign(input: string): Buffer | undefined {
    if (!this.available()) return undefined; // the device is not there: it has failed
    return sign('sha256', Buffer.from(input, 'utf8'), { key: this.key, dsaEncoding: 'ieee-p1363' });
  }
}

function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

export function cashboxDir(dataDir: string, cashboxId: string): string {
  return join(dataDir, 'at', safe(cashboxId));
}

/** The Ordnungsbegriff of the company: `U:<UID>`, `S:<tax number>` or `G:<GLN>`; a bare ATU number gets `U:`. */
export function ordnungsbegriff(taxId: string): string {
  if (/^[USG]:/.test(taxId)) return taxId;
  if (/^ATU\d{8}$/.test(taxId)) return `U:${taxId}`;
  return taxId ? `S:${taxId}` : 'S:0';
}

/** Creates the device's key and self-issued certificate; the key file is written last, as the mark of completion. */
async function createDevice(dir: string, cashboxId: string, companyId: string, index: number): Promise<void> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const x509 = await x509Module();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: `1${randomBytes(8).toString('hex')}`,
    name: `CN=${cashboxId.replace(/[,=+<>#;"\\]/g, ' ')} K${index}, O=${companyId.replace(/[,=+<>#;"\\]/g, ' ') || 'EFR'}`,
    notBefore: new Date(2000, 0, 1),
    notAfter: new Date(2100, 0, 1),
    signingAlgorithm: alg,
    keys,
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeAtomic(join(dir, 'certificate.der'), Buffer.from(cert.rawData), 0o644);
  writeAtomic(join(dir, 'key.pem'), createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ type: 'pkcs8', format: 'pem' }), 0o600);
}

export class DeviceStore {
  private readonly devices = new Map<string, SignatureDevice>();
  private readonly creating = new Map<string, Promise<SignatureDevice>>();
  private readonly keys = new Map<string, Buffer>();

  constructor(private readonly dataDir: string) {}

  private dir(cashboxId: string, index: number): string {
    return join(cashboxDir(this.dataDir, cashboxId), `device-${index}`);
  }

  /** A device already opened by `device` (the synchronous section cannot open one). */
  opened(cashboxId: string, index: number): SignatureDevice | undefined {
    return this.devices.get(this.dir(cashboxId, index));
  }

  /** Device `index` of a cashbox; created on first use (once, also under concurrent first requests). */
  device(cashboxId: string, companyId: string, index: number): Promise<SignatureDevice> {
    const dir = this.dir(cashboxId, index);
    const cached = this.devices.get(dir);
    if (cached) return Promise.resolve(cached);
    let p = this.creating.get(dir);
    if (!p) {
      p = (async () => {
        const keyFile = join(dir, 'key.pem');
        if (!existsSync(keyFile) && !existsSync(join(dir, 'certificate.der'))) await createDevice(dir, cashboxId, companyId, index);
        if (!existsSync(keyFile)) throw new FiscalError('#INVALID_VALUE', { field: 'Sign_Cfg', detail: `signature device ${index} of cashbox ${cashboxId} has no key (${keyFile})` });
        const key = createPrivateKey(readFileSync(keyFile));
        const device = new SoftwareDevice(keyFile, key, `${ordnungsbegriff(companyId)}-K${index}`, createPublicKey(key).export({ type: 'spki', format: 'der' }));
        this.devices.set(dir, device);
        return device;
      })().finally(() => this.creating.delete(dir));
      this.creating.set(dir, p);
    }
    return p;
  }

  /** The cashbox's AES-256 key for the turnover counter (`aes.key`, base64); created on first use. */
  aesKey(cashboxId: string): Buffer {
    const cached = this.keys.get(cashboxId);
    if (cached) return cached;
    const dir = cashboxDir(this.dataDir, cashboxId);
    const file = join(dir, 'aes.key');
    if (!existsSync(file)) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeAtomic(file, randomBytes(32).toString('base64'), 0o600);
    }
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new FiscalError('#INVALID_VALUE', { field: 'aes.key', detail: `${file} does not hold a base64 AES-256 key` });
    this.keys.set(cashboxId, key);
    return key;
  }
}

/** One store per data folder: the devices it opened stay open for the service's life. */
const stores = new Map<string, DeviceStore>();
export function deviceStore(dataDir: string): DeviceStore {
  let s = stores.get(dataDir);
  if (!s) {
    s = new DeviceStore(dataDir);
    stores.set(dataDir, s);
  }
  return s;
}
