/** Turns the schema validator's (Ajv's) errors of a request into per-field issues of the envelope. */
import type { FieldIssue } from '../envelope.js';

export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
}

function fieldOf(path: string, context: string | undefined): string {
  const f = path.replace(/^\//, '').replace(/\//g, '.');
  return f || (context === 'body' || context === undefined ? 'body' : context);
}

export function issuesOfSchemaErrors(errors: readonly SchemaError[], context: string | undefined): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const e of errors) {
    const p = e.params;
    switch (e.keyword) {
      case 'required': {
        const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
        out.push({ field: base ? `${base}.${String(p.missingProperty)}` : String(p.missingProperty), key: 'required' });
        break;
      }
      case 'minLength':
      case 'maxLength':
      case 'minimum':
      case 'maximum':
        out.push({ field: fieldOf(e.instancePath, context), key: e.keyword, params: { limit: Number(p.limit) } });
        break;
      case 'minItems':
        out.push({ field: fieldOf(e.instancePath, context), key: 'minimum', params: { limit: `${Number(p.limit)} entries` } });
        break;
      case 'maxItems':
        out.push({ field: fieldOf(e.instancePath, context), key: 'maximum', params: { limit: `${Number(p.limit)} entries` } });
        break;
      case 'type': {
        const field = fieldOf(e.instancePath, context);
        if (field === 'body') out.push({ field, key: 'body' });
        else out.push({ field, key: 'type', params: { type: ([] as unknown[]).concat(p.type).filter((t) => t !== 'null').join(' or ') } });
        break;
      }
      case 'enum':
        out.push({ field: fieldOf(e.instancePath, context), key: 'enum', params: { values: ((p.allowedValues as unknown[]) ?? []).filter((v) => v !== null).join(', ') } });
        break;
      case 'format':
        out.push({ field: fieldOf(e.instancePath, context), key: p.format === 'email' ? 'email' : p.format === 'date-time' ? 'dateTime' : 'format', params: { format: String(p.format) } });
        break;
      case 'pattern':
        out.push({ field: fieldOf(e.instancePath, context), key: 'pattern' });
        break;
      default:
        out.push({ field: fieldOf(e.instancePath, context), key: 'format', params: { format: e.keyword } });
    }
  }
  return out;
}

/** a high surrogate not followed by a low one, or a low one not preceded by a high one */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textIssue(text: string, field: string): FieldIssue | undefined {
  if (text.includes('\u0000')) return { field, key: 'nul' };
  // not UTF-16 text: each database would store it differently (replaced or refused), never as sent
  if (LONE_SURROGATE.test(text)) return { field, key: 'surrogate' };
  return undefined;
}

/**
 * Values the schemas cannot refuse: numbers that are not finite (`1e400` in a path or query becomes Infinity after
 * type coercion and passes Ajv's integer, minimum and maximum checks), text with a NUL character (PostgreSQL
 * cannot store it; no field of the portal needs it) or a lone UTF-16 surrogate (no text, and stored differently by
 * each database), in values and in the names of object members.
 */
export function unstorableIssues(value: unknown, field: string, depth = 0): FieldIssue[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [{ field, key: 'type', params: { type: 'finite number' } }];
  if (typeof value === 'string') {
    const issue = textIssue(value, field);
    return issue ? [issue] : [];
  }
  if (depth > 4 || value === null || typeof value !== 'object') return [];
  const out: FieldIssue[] = [];
  for (const [k, v] of Object.entries(value)) {
    const name = field ? `${field}.${k}` : k;
    const keyIssue = textIssue(k, field || 'body');
    if (keyIssue) out.push(keyIssue);
    out.push(...unstorableIssues(v, name, depth + 1));
  }
  return out;
}
