/** `efr verify --country de`: the TSE export's log messages, signatures and counters, offline. */
import type { CountryVerifier } from '../verifiers.js';

export const DE_VERIFIER: CountryVerifier = {
  file: 'export.tar (GET /export?type=tse)',
  async verify(path) {
    // loaded when asked for: the service itself never verifies an export
    const { describeTseReport, readTar, verifyTse } = await import('./verify-tse.js');
    const r = verifyTse(await readTar(path));
    return { ok: r.ok, text: describeTseReport(r) };
  },
};
