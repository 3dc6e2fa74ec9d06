/**
 * The OpenAPI document read as the fuzzer needs it: its operations, and a judge of whether a value breaks a
 * JSON Schema of the subset api/json-schema.ts produces. A request that breaks its operation's document must
 * be refused; the judge is deliberately lenient where the app may legitimately transform input (trimming,
 * case), so that a success it calls wrong is wrong for certain.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  examples?: unknown[];
}

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  id: string;
  method: string;
  /** The OpenAPI template, e.g. `/api/v1/loans/loans/{id}/`. */
  path: string;
  access: 'public' | 'authenticated' | string[];
  pathParams: Parameter[];
  queryParams: Parameter[];
  body: JsonSchema | undefined;
  /** The media type of a raw file body (an import's upload: api/upload-body.ts), when the body is not JSON. */
  upload: string | undefined;
  /** Answers a page (`{count, results}`, paged by `page`): an unknown parent id may then answer an empty page. */
  isList: boolean;
}

interface OpenApiOperation {
  operationId: string;
  'x-access': Operation['access'];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

/** Every operation of the document, in its order. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const parameters = operation.parameters ?? [];
      return {
        id: operation.operationId,
        method: method.toUpperCase(),
        path,
        access: operation['x-access'],
        pathParams: parameters.filter((parameter) => parameter.in === 'path'),
        queryParams: parameters.filter((parameter) => parameter.in === 'query'),
        body: operation.requestBody?.content['application/json']?.schema,
        upload:
          operation.requestBody === undefined || 'application/json' in operation.requestBody.content
            ? undefined
            : Object.keys(operation.requestBody.content)[0],
        isList:
          method === 'get' && parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'page'),
      };
    }),
  );
}

/** yup's UUID test (api/json-schema.ts maps `uuid()` to `format: uuid`), nil UUID included. */
const uuidPattern =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|00000000-0000-0000-0000-000000000000)$/i;
const isUuid = (value: string): boolean => uuidPattern.test(value);

/** The pattern of the project's calendar dates (common.schemas.ts): such a string must also be a real date. */
export const datePattern = '^\\d{4}-\\d{2}-\\d{2}$';
/** The pattern of the project's months (common.schemas.ts, `periodSchema`): `YYYY-MM`. */
export const periodPattern = '^\\d{4}-\\d{2}$';
const isRealDate = (value: string): boolean => {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
};

const typeOf = (value: unknown): string[] => {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return ['array'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  return [typeof value];
};

/** Why `value` breaks `schema`, or undefined when it may be valid. `where` names the value in the reason. */
export function violation(schema: JsonSchema, value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  const types = [schema.type ?? []].flat();
  if (types.length > 0 && !typeOf(value).some((type) => types.includes(type)))
    return `${where} is not of type ${types.join(' or ')}`;
  if (value === null) return undefined; // allowed by the type (the enum of a nullable field leaves null out)
  if (typeof value === 'string') return stringViolation(schema, value, where);
  if (typeof value === 'number') return numberViolation(schema, value, where);
  if (Array.isArray(value)) {
    if (value.length < (schema.minItems ?? 0) || value.length > (schema.maxItems ?? Infinity))
      return `${where} has a wrong number of items`;
    return schema.items === undefined
      ? undefined
      : firstOf(value.map((item, index) => () => violation(schema.items!, item, `${where}[${index}]`)));
  }
  if (typeof value === 'object' && value !== null)
    return objectViolation(schema, value as Record<string, unknown>, where);
  if (schema.enum !== undefined && !schema.enum.includes(value)) return `${where} is not one of its values`;
  return undefined;
}

function objectViolation(schema: JsonSchema, value: Record<string, unknown>, where: string): string | undefined {
  const properties = schema.properties ?? {};
  const missing = (schema.required ?? []).find((name) => !Object.hasOwn(value, name));
  if (missing !== undefined) return `${where}.${missing} is required`;
  const unknown = Object.keys(value).find((name) => !Object.hasOwn(properties, name));
  if (unknown !== undefined && schema.additionalProperties === false) return `${where}.${unknown} is not a known field`;
  return firstOf(
    Object.entries(value).map(
      ([name, field]) =>
        () =>
          Object.hasOwn(properties, name) ? violation(properties[name]!, field, `${where}.${name}`) : undefined,
    ),
  );
}

function numberViolation(schema: JsonSchema, value: number, where: string): string | undefined {
  if (value < (schema.minimum ?? -Infinity) || value > (schema.maximum ?? Infinity))
    return `${where} is out of its bounds`;
  if (value <= (schema.exclusiveMinimum ?? -Infinity) || value >= (schema.exclusiveMaximum ?? Infinity))
    return `${where} is out of its bounds`;
  if (schema.enum !== undefined && !schema.enum.includes(value)) return `${where} is not one of its values`;
  return undefined;
}

/**
 * A string breaks its schema only if every reading the app may make of it does: as sent, trimmed, and
 * trimmed in either case (yup's trim, uppercase and lowercase transforms); an empty string is not judged by
 * its pattern (`excludeEmptyString`).
 */
function stringViolation(schema: JsonSchema, value: string, where: string): string | undefined {
  const readings = [value, value.trim(), value.trim().toUpperCase(), value.trim().toLowerCase()];
  const rules: [string, (text: string) => boolean][] = [
    ['is too short', (text) => text.length >= (schema.minLength ?? 0)],
    ['is too long', (text) => text.length <= (schema.maxLength ?? Infinity)],
    [
      'does not match its pattern',
      (text) => schema.pattern === undefined || text === '' || new RegExp(schema.pattern).test(text),
    ],
    [
      'is not a real date',
      (text) => schema.pattern !== datePattern || !new RegExp(datePattern).test(text) || isRealDate(text),
    ],
    ['is not a UUID', (text) => schema.format !== 'uuid' || isUuid(text)],
    ['is not one of its values', (text) => schema.enum === undefined || schema.enum.includes(text)],
  ];
  const broken = rules.find(([, holds]) => !readings.some(holds));
  return broken === undefined ? undefined : `${where} ${broken[0]}`;
}

/**
 * A query or path value is text that yup converts to the parameter's type: numbers as yup casts them
 * (whitespace removed, then `+text`), booleans from true/false/1/0 in any case.
 */
export function textViolation(schema: JsonSchema, text: string, where: string): string | undefined {
  const types = [schema.type ?? []].flat();
  if (types.includes('integer') || types.includes('number')) {
    const number = text.replace(/\s/g, '') === '' ? NaN : Number(text.replace(/\s/g, ''));
    if (Number.isNaN(number)) return `${where} is not a number`;
    if (types.includes('integer') && !types.includes('number') && !Number.isInteger(number))
      return `${where} is not an integer`;
    return numberViolation(schema, number, where);
  }
  if (types.includes('boolean')) return /^(true|false|1|0)$/i.test(text) ? undefined : `${where} is not a boolean`;
  return stringViolation(schema, text, where);
}

const firstOf = (checks: (() => string | undefined)[]): string | undefined => {
  for (const check of checks) {
    const found = check();
    if (found !== undefined) return found;
  }
  return undefined;
};
