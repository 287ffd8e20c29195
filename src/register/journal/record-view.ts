// How a journal record is shown (GET /find, the journal and status pages, a receipt's source), beside the
// records it describes, so that rendering does not import a route file.
import { type Obj, isObj } from '../codec/index.js';
import { answerOf, sealedOf } from '../record-answer.js';
import type { JournalRecord } from './types.js';

/** A journal record as the API shows it: its data with `_` naming the type, the fiscal data as answered, its hash. */
export function recordView(record: JournalRecord): Obj {
  const sealed = sealedOf(record);
  const view: Obj = { ...sealed.data };
  // the fiscal data as answered (with the journal signature where the country does not sign), and what
  // only the journal keeps (a TSE's log messages)
  const answered = answerOf(sealed).body.Fis;
  const stored = sealed.data.Fis;
  if (answered !== undefined || stored !== undefined) view.Fis = { ...(isObj(stored) ? stored : {}), ...(isObj(answered) ? answered : {}) };
  view.Hash = record.hash.toString('hex');
  return view;
}
