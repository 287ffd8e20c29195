/**
 * Path parameters and query strings arrive as text: before validation their values are turned into the integers,
 * numbers and booleans their route schema asks for. JSON bodies are never coerced (a body value of the wrong JSON
 * type is refused), which is why the validator itself does not coerce.
 */

interface PropertySchema {
  type?: string | string[];
}

interface ObjectSchema {
  properties?: Record<string, PropertySchema>;
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function typesOf(schema: PropertySchema): string[] {
  return schema.type === undefined ? [] : ([] as string[]).concat(schema.type);
}

function coerceValue(value: unknown, types: readonly string[]): unknown {
  if (typeof value !== 'string') return value;
  if ((types.includes('integer') || types.includes('number')) && NUMBER.test(value.trim())) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** Coerces the members of `values` (path parameters or query) in place by the properties of `schema`. */
export function coerceUrlValues(values: unknown, schema: unknown): void {
  if (values === null || typeof values !== 'object' || schema === null || typeof schema !== 'object') return;
  const properties = (schema as ObjectSchema).properties;
  if (!properties) return;
  const target = values as Record<string, unknown>;
  for (const [name, property] of Object.entries(properties)) {
    if (!Object.prototype.hasOwnProperty.call(target, name)) continue;
    const types = typesOf(property);
    if (types.length === 0 || types.includes('string')) continue;
    const v = target[name];
    // a repeated query parameter stays a list (and fails its schema) unless it is one value
    target[name] = Array.isArray(v) ? (v.length === 1 ? coerceValue(v[0], types) : v) : coerceValue(v, types);
  }
}
