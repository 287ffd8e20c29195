/**
 * RKSV signature devices in software: per cashbox, devices `device-<n>` in the data folder, each a
 * P-256 key with a self-issued certificate (its serial is what the receipts name). A device whose key
 * cannot be read has failed: receipts are then marked "Sicherheitseinrichtung ausgefallen".
 * A smartcard or HSM driver would implement the same `SignatureDevice`.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, randomBytes, sign, webcrypto, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export interface SignatureDevice {
  /** the serial of its certificate, hex (the field "Zertifikat-Seriennummer" of the code) */
  readonly serial: string;
  /** the certificate, DER */
  readonly certificate: Buffer;
  /** ES256 signature (r‖s) over the input; undefined when the device has failed */
  sign(input: string): Buffer | undefined;
}

class SoftwareDevice implements SignatureDevice {
  constructor(
    private readonly keyFile: string,
    readonly serial: string,
    readonly certificate: Buffer,
  ) {}

  sign(input: string): Buffer | undefined {
    let key: KeyObject;
    try {
      key = createPrivateKey(readFileSync(this.keyFile));
    } catch {
      return undefined; // the device is not there or cannot be read: it has failed
    }
    return sign('sha256', Buffer.from(input, 'utf8'), { key, dsaEncoding: 'ieee-p1363' });
  }
}

function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

export function cashboxDir(dataDir: string, cashboxId: string): string {
  return join(dataDir, 'at', safe(cashboxId));
}

/** Creates the device's key and self-issued certificate when the folder does not exist yet. */
async function createDevice(dir: string, cashboxId: string, companyId: string, index: number): Promise<void> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const serial = randomBytes(8).toString('hex').replace(/^0/, '1');
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial,
    name: `CN=${cashboxId.replace(/[,=+<>#;"\\]/g, ' ')} signature device ${index}, O=${companyId.replace(/[,=+<>#;"\\]/g, ' ') || 'EFR'}`,
    notBefore: new Date(2000, 0, 1),
    notAfter: new Date(2100, 0, 1),
    signingAlgorithm: alg,
    keys,
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'certificate.der'), Buffer.from(cert.rawData));
  const pem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END PRIVATE KEY-----\n`.replace(/\n\n/g, '\n');
  writeFileSync(join(dir, 'key.pem.tmp'), pem, { mode: 0o600 });
  renameSync(join(dir, 'key.pem.tmp'), join(dir, 'key.pem'));
}

export class DeviceStore {
  private readonly devices = new Map<string, SignatureDevice>();
  private readonly keys = new Map<string, Buffer>();

  constructor(private readonly dataDir: string) {}

  /** A device already opened by `device` (the synchronous section cannot create one). */
  opened(cashboxId: string, index: number): SignatureDevice | undefined {
    return this.devices.get(join(cashboxDir(this.dataDir, cashboxId), `device-${index}`));
  }

  /** Device `index` of a cashbox; created on first use. */
  async device(cashboxId: string, companyId: string, index: number): Promise<SignatureDevice> {
    const dir = join(cashboxDir(this.dataDir, cashboxId), `device-${index}`);
    const cached = this.devices.get(dir);
    if (cached) return cached;
    if (!existsSync(join(dir, 'certificate.der'))) await createDevice(dir, cashboxId, companyId, index);
    const der = readFileSync(join(dir, 'certificate.der'));
    const serial = new x509.X509Certificate(der).serialNumber.toUpperCase();
    const device = new SoftwareDevice(join(dir, 'key.pem'), serial, der);
    this.devices.set(dir, device);
    return device;
  }

  /** The cashbox's AES-256 key for the turnover counter (`aes.key`, base64); created on first use. */
  aesKey(cashboxId: string): Buffer {
    const cached = this.keys.get(cashboxId);
    if (cached) return cached;
    const dir = cashboxDir(this.dataDir, cashboxId);
    const file = join(dir, 'aes.key');
    if (!existsSync(file)) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
    }
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a base64 AES-256 key`);
    this.keys.set(cashboxId, key);
    return key;
  }
}
