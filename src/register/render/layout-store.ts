/** The custom layouts of a register (issue 7). PLACEHOLDER: the layouts helper writes the store. */
import type { TemplateKind } from './template-sandbox.js';

export interface Layout {
  /** file name without extension */
  name: string;
  kind: TemplateKind;
  source: string;
}

/** The layout that replaces the default template for this RN, if any. */
export function activeLayout(_dataDir: string, _rn: string): Promise<Layout | undefined> {
  return Promise.resolve(undefined);
}
