/**
 * Prints a golden-test receipt as /render/text draws it, for looking at a layout:
 *   node --import tsx test/receipts-print.ts mixed 48
 * Names: the cases of receipts-golden-cases.ts; width 32, 42 (default) or 48.
 */
import { receiptText } from '../src/register/render/receipt-text.js';
import { CASES, caseView } from './receipts-golden-cases.js';

const [name = 'mixed', width = '42'] = process.argv.slice(2);
const c = CASES.find((x) => x.name === name);
if (!c) {
  console.error(`unknown receipt ${name}: ${CASES.map((x) => x.name).join(', ')}`);
  process.exit(2);
}
process.stdout.write(receiptText(caseView(c), Number(width)));
