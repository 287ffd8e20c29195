/** Germany's files of a register: de/<RN>/, the TSE's keys, certificate, counters and its backups. */
import { type CountryFiles, registerFolderFiles } from '../country-files.js';

export const DE_FILES: CountryFiles = registerFolderFiles('de');
