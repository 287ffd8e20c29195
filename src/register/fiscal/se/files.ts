/** Sweden's files of a register: se/<RN>/, its software control unit's key and the public keys of the units it used. */
import { type CountryFiles, safeSegment } from '../country-files.js';

export const SE_FILES: CountryFiles = {
  paths: (_dataDir, reg) => [{ path: `se/${safeSegment(reg.rn)}` }],
  admits: (path, reg) => path.split('/')[0] === 'se' && path.split('/')[1] === safeSegment(reg.rn) && path.split('/').length >= 3,
  ownFolder: (path) => /^se\/[^/]+/.exec(path)?.[0],
};
