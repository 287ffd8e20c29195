/** ES: placeholder until the country module is written (issue 6); behaves like the generic module. */
import { GenericModule } from '../generic/index.js';
import { ES_LETTERS } from '../tax-letters.js';

export class EsModule extends GenericModule {
  constructor() {
    super('ES', ES_LETTERS);
  }
}
