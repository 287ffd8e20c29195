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

/**
 * Values the schemas cannot refuse: numbers that are not finite (`1e400` in a path or query becomes Infinity after
 * type coercion and passes Ajv's integer, minimum and maximum checks), and text with a NUL character (PostgreSQL
 * cannot store it; no field of the portal needs it).
 */
export function unstorableIssues(value: unknown, field: string, depth = 0): FieldIssue[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [{ field, key: 'type', params: { type: 'finite number' } }];
  if (typeof value === 'string') return value.includes('\u0000') ? [{ field, key: 'nul' }] : [];
  if (depth > 4 || value === null || typeof value !== 'object') return [];
  const out: FieldIssue[] = [];
  for (const [k, v] of Object.entries(value)) out.push(...unstorableIssues(v, field ? `${field}.${k}` : k, depth + 1));
  return out;
}
