import type {
  Schema,
  SchemaDescription,
  SchemaFieldDescription,
  SchemaInnerTypeDescription,
  SchemaObjectDescription,
} from 'yup';

/** A JSON Schema (OpenAPI 3.1 dialect) object. */
export type JsonSchema = Record<string, unknown>;

/**
 * Converts a yup schema to JSON Schema from its `describe()` output, so the OpenAPI document states the very
 * rules the request validation applies. Covers what the project's schemas use: strings (length, pattern,
 * email, uuid, url, enums), numbers (integer, bounds), booleans, dates, objects, arrays, nullability, and
 * `meta({ description, example })`.
 */
export function toJsonSchema(schema: Schema<unknown>, components?: Components): JsonSchema {
  return fromDescription(schema.describe(), components);
}

/**
 * The named schemas of a document. A yup schema with `meta({ component: 'Name' })` becomes
 * `#/components/schemas/Name` when a document collects components (responses), and stays inline otherwise.
 */
export type Components = Record<string, JsonSchema>;

/** What `meta()` may carry: documentation, a component name, and a string format yup cannot express. */
export interface SchemaMeta {
  description?: string;
  example?: unknown;
  component?: string;
  format?: 'date' | 'date-time';
  /** The component each item of an array is: how a recursive schema (a tree) refers to itself. */
  itemsComponent?: string;
}

type FullDescription = SchemaDescription & Partial<SchemaObjectDescription & SchemaInnerTypeDescription>;

function fromDescription(description: SchemaFieldDescription, components: Components | undefined): JsonSchema {
  const full = description as FullDescription;
  const meta = (full.meta ?? {}) as SchemaMeta;
  if (meta.component === undefined || components === undefined) return inlineSchema(full, components);
  // A nullable use of a component is the component or null; the component itself is never null.
  components[meta.component] ??= inlineSchema({ ...full, nullable: false }, components);
  const reference = { $ref: `#/components/schemas/${meta.component}` };
  return full.nullable ? { oneOf: [reference, { type: 'null' }] } : reference;
}

function inlineSchema(full: FullDescription, components: Components | undefined): JsonSchema {
  const json: JsonSchema = { ...typeKeywords(full, components) };
  for (const test of full.tests ?? []) Object.assign(json, testKeywords(full.type, test.name, test.params ?? {}));
  const allowed = (full.oneOf ?? []).filter((value) => value !== undefined && value !== null);
  if (allowed.length > 0) json.enum = full.nullable ? [...allowed, null] : allowed;
  if (full.label !== undefined) json.title = full.label;
  const meta = (full.meta ?? {}) as SchemaMeta;
  if (meta.description !== undefined) json.description = meta.description;
  if (meta.example !== undefined) json.examples = [meta.example];
  if (meta.format !== undefined) json.format = meta.format;
  // yup gives objects and arrays an implicit default ({} / undefined) that means nothing to a client.
  if (full.default !== undefined && typeof full.default !== 'function' && typeof full.default !== 'object')
    json.default = full.default;
  if (full.nullable && typeof json.type === 'string') json.type = [json.type, 'null'];
  return json;
}

function typeKeywords(description: FullDescription, components: Components | undefined): JsonSchema {
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
      const itemsComponent = (description.meta as SchemaMeta | undefined)?.itemsComponent;
      if (itemsComponent !== undefined)
        return { type: 'array', items: { $ref: `#/components/schemas/${itemsComponent}` } };
      const inner = description.innerType;
      return inner === undefined || Array.isArray(inner)
        ? { type: 'array' }
        : { type: 'array', items: fromDescription(inner, components) };
    }
    case 'object': {
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const [name, field] of Object.entries(description.fields ?? {})) {
        properties[name] = fromDescription(field, components);
        if (!(field as SchemaDescription).optional) required.push(name);
      }
      // An object declared without fields is a free-form map (approval limits by role, an event's payload).
      if (Object.keys(properties).length === 0) return { type: 'object' };
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
      return isString
        ? { minLength: params.min }
        : type === 'array'
          ? { minItems: params.min }
          : { minimum: params.min };
    case 'max':
      return isString
        ? { maxLength: params.max }
        : type === 'array'
          ? { maxItems: params.max }
          : { maximum: params.max };
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
