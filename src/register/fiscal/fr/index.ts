/** FR: placeholder until the country module is written (issue 6); behaves like the generic module. */
import { GenericModule } from '../generic/index.js';
import { FR_LETTERS } from '../tax-letters.js';

export class FrModule extends GenericModule {
  constructor() {
    super('FR', FR_LETTERS);
  }
}
