/** France's files of a register: fr/<RN>/, the NF525 signing key and the events waiting to be journaled. */
import { type CountryFiles, safeSegment } from '../country-files.js';

export const FR_FILES: CountryFiles = {
  paths: (_dataDir, reg) => [{ path: `fr/${safeSegment(reg.rn)}` }],
  admits: (path, reg) => path.split('/')[0] === 'fr' && path.split('/')[1] === safeSegment(reg.rn) && path.split('/').length >= 3,
  ownFolder: (path) => /^fr\/[^/]+/.exec(path)?.[0],
};
