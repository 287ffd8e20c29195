/** `efr verify --country de`: a TSE export's certificates, log messages, signatures and counters, offline. */
import type { CountryVerifier } from '../verifiers.js';

export const DE_VERIFIER: CountryVerifier = {
  file: 'export.tar (GET /export?type=tse)',
  async verify(path) {
    // loaded when asked for: the service itself never verifies an export
    const [{ describeTseReport, verifyTse }, { readTar }] = await Promise.all([import('./verify-tse.js'), import('./tar.js')]);
    let files: Map<string, Buffer>;
    try {
      files = await readTar(path);
    } catch (e) {
      return { ok: false, text: `BROKEN at ${path}: ${e instanceof Error ? e.message : String(e)}` };
    }
    const r = verifyTse(files);
    return { ok: r.ok, text: describeTseReport(r) };
  },
};
