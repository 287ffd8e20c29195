/** `efr verify --country <cc> <file>`: the offline verifier of each country's export, by country code. */
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
  verify(path: string): Promise<VerifyOutcome>;
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
  no: { file: 'export.zip or the SAF-T Cash Register XML (GET /export?type=saft)', verify: verifyNo },
  dk: { file: 'export.zip or the SAF-T Cash Register XML (GET /export?type=saft)', verify: verifyDanishExport },
};
