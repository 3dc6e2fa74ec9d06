import type { Schema, SchemaDescription, SchemaFieldDescription, SchemaInnerTypeDescription, SchemaObjectDescription } from 'yup';

/** A JSON Schema (OpenAPI 3.1 dialect) object. */
export type JsonSchema = Record<string, unknown>;

/**
 * Converts a yup schema to JSON Schema from its `describe()` output, so the OpenAPI document states the very
 * rules the request validation applies. Covers what the project's schemas use: strings (length, pattern,
 * email, uuid, url, enums), numbers (integer, bounds), booleans, dates, objects, arrays, nullability, and
 * `meta({ description, example })`.
 */
export function toJsonSchema(schema: Schema<unknown>): JsonSchema {
  return fromDescription(schema.describe());
}

function fromDescription(description: SchemaFieldDescription): JsonSchema {
  const full = description as SchemaDescription & Partial<SchemaObjectDescription & SchemaInnerTypeDescription>;
  const json: JsonSchema = { ...typeKeywords(full) };
  for (const test of full.tests ?? []) Object.assign(json, testKeywords(full.type, test.name, test.params ?? {}));
  const allowed = (full.oneOf ?? []).filter((value) => value !== undefined && value !== null);
  if (allowed.length > 0) json.enum = allowed;
  if (full.label !== undefined) json.title = full.label;
  const meta = (full.meta ?? {}) as { description?: string; example?: unknown };
  if (meta.description !== undefined) json.description = meta.description;
  if (meta.example !== undefined) json.examples = [meta.example];
  if (full.default !== undefined && typeof full.default !== 'function') json.default = full.default;
  if (full.nullable && typeof json.type === 'string') json.type = [json.type, 'null'];
  return json;
}

function typeKeywords(description: SchemaDescription & Partial<SchemaObjectDescription & SchemaInnerTypeDescription>): JsonSchema {
  switch (description.type) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date-time' };
    case 'array': {
      const inner = description.innerType;
      return inner === undefined || Array.isArray(inner) ? { type: 'array' } : { type: 'array', items: fromDescription(inner) };
    }
    case 'object': {
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const [name, field] of Object.entries(description.fields ?? {})) {
        properties[name] = fromDescription(field);
        if (!(field as SchemaDescription).optional) required.push(name);
      }
      return required.length > 0
        ? { type: 'object', properties, required, additionalProperties: false }
        : { type: 'object', properties, additionalProperties: false };
    }
    default:
      return {};
  }
}

function testKeywords(type: string, name: string | undefined, params: Record<string, unknown>): JsonSchema {
  const isString = type === 'string';
  switch (name) {
    case 'min':
      return isString ? { minLength: params.min } : type === 'array' ? { minItems: params.min } : { minimum: params.min };
    case 'max':
      return isString ? { maxLength: params.max } : type === 'array' ? { maxItems: params.max } : { maximum: params.max };
    case 'length':
      return { minLength: params.length, maxLength: params.length };
    case 'moreThan':
      return { exclusiveMinimum: params.more };
    case 'lessThan':
      return { exclusiveMaximum: params.less };
    case 'integer':
      return { type: 'integer' };
    case 'matches':
      return params.regex instanceof RegExp ? { pattern: params.regex.source } : {};
    case 'email':
      return { format: 'email' };
    case 'uuid':
      return { format: 'uuid' };
    case 'url':
      return { format: 'uri' };
    default:
      return {};
  }
}
