/** `efr verify --country at`: the DEP export's signatures and chain, offline. */
import type { CountryVerifier } from '../verifiers.js';

export const AT_VERIFIER: CountryVerifier = {
  file: 'dep-export.zip (GET /export?type=dep)',
  async verify(path) {
    // loaded when asked for: the service itself never verifies an export
    const { describeDepReport, verifyDepZip } = await import('./verify-dep.js');
    const r = await verifyDepZip(path);
    return { ok: r.ok, text: describeDepReport(r) };
  },
};
