/** Sweden's files of a register: se/<RN>/, its software control unit's key and the public keys of the units it used. */
import { type CountryFiles, registerFolderFiles } from '../country-files.js';

export const SE_FILES: CountryFiles = registerFolderFiles('se');
