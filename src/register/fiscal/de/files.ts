/** Germany's files of a register: de/<RN>/, the TSE's keys, certificate, counters and its backups. */
import { type CountryFiles, safeSegment } from '../country-files.js';

export const DE_FILES: CountryFiles = {
  paths: (_dataDir, reg) => [{ path: `de/${safeSegment(reg.rn)}` }],
  admits: (path, reg) => path.split('/')[0] === 'de' && path.split('/')[1] === safeSegment(reg.rn) && path.split('/').length >= 3,
  ownFolder: (path) => /^de\/[^/]+/.exec(path)?.[0],
};
