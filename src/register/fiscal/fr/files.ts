/** France's files of a register: fr/<RN>/, the NF525 signing key and the events waiting to be journaled. */
import { type CountryFiles, registerFolderFiles } from '../country-files.js';

export const FR_FILES: CountryFiles = registerFolderFiles('fr');
