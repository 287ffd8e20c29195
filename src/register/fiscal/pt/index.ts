/** PT: placeholder until the country module is written (issue 6); behaves like the generic module. */
import { GenericModule } from '../generic/index.js';
import { PT_LETTERS } from '../tax-letters.js';

export class PtModule extends GenericModule {
  constructor() {
    super('PT', PT_LETTERS);
  }
}
