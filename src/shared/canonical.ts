/** Canonical JSON (keys sorted at every level) and its SHA-256, for content comparison. */
import { createHash } from 'node:crypto';

type Tree = string | Tree[] | { [k: string]: Tree };

function write(v: Tree, out: string[]): void {
  if (typeof v === 'string') {
    out.push(JSON.stringify(v));
  } else if (Array.isArray(v)) {
    out.push('[');
    v.forEach((x, i) => {
      if (i) out.push(',');
      write(x, out);
    });
    out.push(']');
  } else {
    out.push('{');
    Object.keys(v)
      .sort()
      .forEach((k, i) => {
        if (i) out.push(',');
        out.push(JSON.stringify(k), ':');
        write(v[k] as Tree, out);
      });
    out.push('}');
  }
}

export function canonicalJson(v: Tree): string {
  const out: string[] = [];
  write(v, out);
  return out.join('');
}

/** First 16 bytes of SHA-256 over the canonical JSON, leaving out the named top-level keys. */
export function contentHash(v: { [k: string]: Tree }, without: readonly string[] = []): Buffer {
  let subject = v;
  if (without.length) {
    subject = { ...v };
    for (const k of without) delete subject[k];
  }
  return createHash('sha256').update(canonicalJson(subject)).digest().subarray(0, 16);
}
