/**
 * GET /log: the lines a client has not seen yet. A client names itself by `iid`; for each iid the service
 * remembers where the log stood after its last answer (the file's identity and size), in memory, for at
 * most `maxClients` clients (the least recently seen is forgotten). A client asking for the first time
 * (or forgotten, or after a restart of the service) gets the last `first` lines; a client whose place was
 * rotated away gets what is left, at most `max` lines; each answer reads at most `maxBytes` of the files.
 */
import type { LogSnapshot } from './log-snapshot.js';

export interface LogMark {
  /** identity of the newest file at the last answer ('' when there was none) */
  id: string;
  /** its size then: every line before it was answered */
  offset: number;
}

export interface TailLimits {
  /** lines of a first answer */
  first: number;
  /** lines of any answer */
  max: number;
  /** bytes read for one answer */
  maxBytes: number;
}

export const TAIL_LIMITS: TailLimits = { first: 100, max: 1000, maxBytes: 1024 * 1024 };

/** Where each client's last answer ended; bounded, least recently used forgotten first. */
export class IidMarks {
  private readonly marks = new Map<string, LogMark>();

  constructor(readonly maxClients = 1000) {}

  get(iid: string): LogMark | undefined {
    return this.marks.get(iid);
  }

  set(iid: string, mark: LogMark): void {
    this.marks.delete(iid);
    this.marks.set(iid, mark);
    while (this.marks.size > this.maxClients) {
      const oldest = this.marks.keys().next().value;
      if (oldest === undefined) break;
      this.marks.delete(oldest);
    }
  }

  get size(): number {
    return this.marks.size;
  }
}

interface Segment {
  file: number;
  start: number;
  end: number;
}

/** The raw lines after `mark` (or the last `first` lines without one), oldest first, and the new mark. */
export function linesAfter(snapshot: LogSnapshot, mark: LogMark | undefined, limits: TailLimits = TAIL_LIMITS): { lines: string[]; mark: LogMark } {
  const files = snapshot.files;
  const newest = files[files.length - 1];
  const next: LogMark = newest ? { id: newest.id, offset: newest.size } : { id: '', offset: 0 };
  let segments: Segment[];
  let max = limits.max;
  const at = mark ? files.findIndex((f) => f.id === mark.id) : -1;
  if (mark && at >= 0 && (files[at]?.size ?? 0) >= mark.offset) {
    segments = files.slice(at).map((f, i) => ({ file: at + i, start: i === 0 ? mark.offset : 0, end: f.size }));
  } else {
    segments = files.map((f, i) => ({ file: i, start: 0, end: f.size }));
    if (!mark) max = limits.first;
  }
  const lines: string[] = [];
  let budget = limits.maxBytes;
  // newest segment first, each read from its end, until enough lines or bytes
  for (let s = segments.length - 1; s >= 0 && lines.length < max && budget > 0; s--) {
    const seg = segments[s] as Segment;
    const file = files[seg.file];
    if (!file || seg.end <= seg.start) continue;
    const from = Math.max(seg.start, seg.end - budget);
    budget -= seg.end - from;
    const parts = snapshot.read(file, from, seg.end).toString('utf8').split('\n');
    // the text after the last line break is a line still being written (never, as lines are written whole)
    parts.pop();
    // a read that began inside a line drops that part
    if (from > seg.start) parts.shift();
    const wanted = parts.filter((l) => l.trim() !== '');
    lines.unshift(...wanted.slice(Math.max(0, wanted.length - (max - lines.length))));
  }
  return { lines, mark: next };
}
