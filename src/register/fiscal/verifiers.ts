/**
 * `efr verify --country <cc> [--key <pem>]... <file>`: the offline verifier of each country's export, by
 * country code; `--key` (where the country's verifier takes it) pins the public key the signatures must be by.
 */
import { describeDepReport, verifyDepZip } from './at/verify-dep.js';
import { describeTseReport, readTar, verifyTse } from './de/verify-tse.js';
import { verifyExportFile as verifyFr } from './fr/verify.js';
import { verifyExportFile as verifyPt } from './pt/verify.js';
import { verifyExportFile as verifyEs } from './es/verify.js';
import { verifyExportFile as verifyNo } from './no/verify.js';
import { verifyDanishExport } from './dk/verify.js';

/** What a verifier found: ok, and a text naming the first broken record when not. */
export interface VerifyOutcome {
  ok: boolean;
  text: string;
}

export interface CountryVerifier {
  /** what file it reads, for the usage text */
  file: string;
  /** what `--key <pem>` is, for the verifiers that take it (the usage text); absent: --key is refused */
  key?: string;
  verify(path: string, options?: { keys?: readonly string[] }): Promise<VerifyOutcome>;
}

export const VERIFIERS: Readonly<Record<string, CountryVerifier>> = {
  at: {
    file: 'dep-export.zip (GET /export?type=dep)',
    async verify(path) {
      const r = await verifyDepZip(path);
      return { ok: r.ok, text: describeDepReport(r) };
    },
  },
  de: {
    file: 'export.tar (GET /export?type=tse)',
    async verify(path) {
      const r = verifyTse(await readTar(path));
      return { ok: r.ok, text: describeTseReport(r) };
    },
  },
  fr: { file: 'export.xml or jou.zip (GET /export?type=nf525-export or nf525-jou)', verify: verifyFr },
  pt: { file: 'export.zip or the SAF-T PT XML (GET /export?type=saft)', verify: verifyPt },
  es: { file: 'export.zip (GET /export?type=verifactu)', verify: verifyEs },
  no: { file: 'export.zip or the SAF-T Cash Register XML (GET /export?type=saft)', key: 'the declared public key (SPKI PEM), repeatable', verify: verifyNo },
  dk: { file: 'export.zip or the SAF-T Cash Register XML (GET /export?type=saft)', key: 'the expected certificate or public key (PEM), repeatable', verify: verifyDanishExport },
};
