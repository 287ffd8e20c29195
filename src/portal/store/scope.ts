/**
 * Read scopes as key ranges over the materialized path: "path starts with /2/5/" is
 * `path >= '/2/5/' AND path < '/2/50'` ('0' is the character after '/'), which a plain B-tree index on
 * the path answers in both databases (PostgreSQL: the column is COLLATE "C").
 */
import { StoreBadQuery, type ReadScope } from './types.js';

const PATH = /^\/(?:[1-9][0-9]*\/)+$/;

export interface PathRange {
  from: string;
  /** exclusive */
  to: string;
}

export function pathRange(path: string): PathRange {
  if (!PATH.test(path)) throw new StoreBadQuery('scope', `not an entity path: ${JSON.stringify(path)}`);
  return { from: path, to: `${path.slice(0, -1)}0` };
}

/** null: everything; otherwise the ranges (an empty list: nothing), prefixes under another one dropped. */
export function scopeRanges(scope: ReadScope): PathRange[] | null {
  if ('all' in scope) return null;
  const sorted = [...new Set(scope.prefixes)].sort();
  const kept: string[] = [];
  for (const p of sorted) {
    pathRange(p);
    const last = kept[kept.length - 1];
    if (last !== undefined && p.startsWith(last)) continue;
    kept.push(p);
  }
  return kept.map(pathRange);
}
