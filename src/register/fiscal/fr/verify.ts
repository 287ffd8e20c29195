/** efr verify --country fr: placeholder until the verifier is written (issue 6). */
import type { VerifyOutcome } from '../verifiers.js';

export async function verifyExportFile(file: string): Promise<VerifyOutcome> {
  return Promise.resolve({ ok: false, text: `${file}: the FR verifier is not written yet` });
}
