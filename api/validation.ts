import {
  ValidationError as YupValidationError,
  type Schema,
  type SchemaDescription,
  type SchemaFieldDescription,
} from 'yup';
import { ValidationError, type FieldError } from '../domain/errors';

export type InputLocation = 'path' | 'query' | 'body';

/**
 * Validates and converts one part of a request with its yup schema, reporting every invalid field at once
 * (`abortEarly: false`), so handlers only ever see the validated value, never the raw input.
 *
 * Before yup sees it, the input's shape is checked against the schema (`shapeProblems`): yup casts what it can
 * ("12" to 12, [true] to true) and its transforms (`trim`) run before its type checks, so an object where a
 * string is expected would crash them; and PostgreSQL refuses NUL bytes and unpaired surrogates in text.
 */
export async function validateInput<T>(schema: Schema<T>, input: unknown, location: InputLocation): Promise<T> {
  const shape = shapeProblems(descriptionOf(schema), input, '', location);
  const message = `The request ${locationNoun[location]} has invalid fields.`;
  if (shape.some((problem) => problem.field === location)) throw new ValidationError(shape, message);
  // The other fields are still validated, so that one answer lists every fault.
  const faulty = new Set(shape.map((problem) => topLevelField(problem.field)));
  const rest =
    isPlainObject(input) && faulty.size > 0
      ? Object.fromEntries(Object.entries(input).filter(([key]) => !faulty.has(key)))
      : input;
  let others: FieldError[] = [];
  try {
    const value = await schema.validate(withDefaults(schema, rest), { abortEarly: false, stripUnknown: true });
    if (shape.length === 0) return value;
  } catch (error) {
    if (!(error instanceof YupValidationError)) throw error;
    others = fieldErrors(error, location).filter((problem) => !faulty.has(topLevelField(problem.field)));
  }
  throw new ValidationError([...shape, ...others].slice(0, maxReported), message);
}

/** `legs[2].debit` belongs to `legs`. */
const topLevelField = (field: string): string => field.split(/[.[]/, 1)[0]!;

/** A hostile request can hold thousands of faults: the first ones tell the client enough. */
const maxReported = 20;

/**
 * Fills absent top-level fields with their schema defaults before validating: yup applies defaults while
 * casting, and strict fields (money strings, integers that must be JSON numbers) are never cast.
 */
function withDefaults(schema: Schema<unknown>, input: unknown): unknown {
  if (!isPlainObject(input) || descriptionOf(schema).type !== 'object') return input;
  const defaults = defaultsOf(schema).filter(([key]) => !Object.hasOwn(input, key));
  return defaults.length === 0 ? input : { ...Object.fromEntries(defaults), ...input };
}

// yup schemas are immutable: what is read from one once holds for every request of its route (describe() walks and
// clones the whole schema).
const descriptions = new WeakMap<Schema<unknown>, Description>();
const primitiveDefaults = new WeakMap<Schema<unknown>, [string, unknown][]>();

function descriptionOf(schema: Schema<unknown>): Description {
  let description = descriptions.get(schema);
  if (description === undefined) descriptions.set(schema, (description = schema.describe()));
  return description;
}

/** The fields' defaults; kept only when all are primitives (an object default is made anew for each request). */
function defaultsOf(schema: Schema<unknown>): [string, unknown][] {
  const known = primitiveDefaults.get(schema);
  if (known !== undefined) return known;
  const defaults = Object.entries((schema.getDefault() ?? {}) as Record<string, unknown>).filter(
    ([, value]) => value !== undefined,
  );
  if (defaults.every(([, value]) => value === null || typeof value !== 'object'))
    primitiveDefaults.set(schema, defaults);
  return defaults;
}

const locationNoun: Record<InputLocation, string> = { path: 'path', query: 'query string', body: 'body' };

function fieldErrors(error: YupValidationError, location: InputLocation): FieldError[] {
  const leaves = error.inner.length > 0 ? error.inner : [error];
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const leaf of leaves) {
    // A root-level failure (e.g. a JSON array where an object is expected) is reported on the location itself.
    const field = leaf.path === undefined || leaf.path === '' ? location : leaf.path;
    const message = leaf.message;
    if (seen.has(`${field}\u0000${message}`)) continue;
    seen.add(`${field}\u0000${message}`);
    errors.push({ field, message });
  }
  return errors.slice(0, maxReported);
}

type Description = SchemaFieldDescription &
  Partial<Pick<SchemaDescription, 'type'>> & {
    fields?: Record<string, SchemaFieldDescription>;
    innerType?: SchemaFieldDescription;
  };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// A NUL byte, or half of a UTF-16 surrogate pair: neither can be stored as text.
const unstorable = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// C0 controls but tab, line feed and carriage return; DEL; C1. ESC and CSI are among them: no ANSI escape sequence
// (colours, cursor moves, a cleared screen in whoever reads a log or an export in a terminal) gets through.
const controlCharacter = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// A name, label, title or code is one line: a line break or tab there would forge lines in logs, exports and
// documents. Free text (reasons, notes, descriptions, addresses) may span lines.
const oneLineField = /(^|_)(name|label|title|code|username)$/;
const lineBreakOrTab = /[\t\n\r]/;

/** Control characters in input text: refused everywhere, and line breaks and tabs too in one-line fields. */
function controlProblem(value: string, path: string, field: string): FieldError | undefined {
  if (controlCharacter.test(value)) return { field, message: `${field} must not contain control characters` };
  const key =
    path
      .split(/[.[\]]/)
      .filter((part) => part !== '')
      .pop() ?? '';
  if (oneLineField.test(key) && lineBreakOrTab.test(value))
    return { field, message: `${field} must be one line, without tabs` };
  return undefined;
}

/** A number as a query or path gives it: an optional minus, digits, an optional decimal part, nothing else. */
const decimalText = /^-?\d+(\.\d+)?$/;

const label = (path: string, location: InputLocation) => (path === '' ? location : path);

/**
 * What yup must not be given: a value of another JSON type than the field's (a body is typed strictly: "12"
 * is not a number, [true] is not a boolean), a field the schema does not know (a typo, a stale client, or
 * `__proto__`), a query parameter given twice, text that cannot be stored. Query and path values are text
 * that yup converts, so only their shape and characters (a number's decimal digits) are checked here.
 */
function shapeProblems(description: Description, value: unknown, path: string, location: InputLocation): FieldError[] {
  if (value === undefined || value === null) return [];
  const field = label(path, location);
  if (typeof value === 'string') {
    if (unstorable.test(value))
      return [{ field, message: `${field} must not contain NUL bytes or unpaired surrogates` }];
    const control = controlProblem(value, path, field);
    if (control !== undefined) return [control];
    // yup casts with Number(), which reads "0x10", "1e1", "+5" and " 5": a query number is decimal digits only.
    if (location !== 'body' && description.type === 'number' && !decimalText.test(value))
      return [{ field, message: `${field} must be a number in decimal digits` }];
    if (location !== 'body' || description.type === 'string' || description.type === 'mixed') return [];
  }
  if (location !== 'body' && Array.isArray(value)) return [{ field, message: `${field} must be given once` }];
  switch (description.type) {
    case 'string':
      return [{ field, message: `${field} must be a string` }];
    case 'number':
      return typeof value === 'number' ? [] : [{ field, message: `${field} must be a number` }];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [{ field, message: `${field} must be true or false` }];
    case 'array':
      if (!Array.isArray(value)) return [{ field, message: `${field} must be an array` }];
      return value
        .flatMap((item, index) =>
          shapeProblems(description.innerType as Description, item, `${path}[${index}]`, location),
        )
        .slice(0, maxReported);
    case 'object':
      return objectProblems(description, value, path, location);
    default:
      return [];
  }
}

function objectProblems(description: Description, value: unknown, path: string, location: InputLocation): FieldError[] {
  const field = label(path, location);
  if (!isPlainObject(value)) return [{ field, message: `${field} must be an object` }];
  const fields = description.fields ?? {};
  const problems: FieldError[] = [];
  for (const [key, nested] of Object.entries(value)) {
    const name = path === '' ? key : `${path}.${key}`;
    // Own fields only: `constructor` or `toString` must not find Object.prototype's.
    const known = Object.hasOwn(fields, key) ? (fields[key] as Description) : undefined;
    problems.push(
      ...(known === undefined
        ? [{ field: name, message: `${name} is not a known field` }]
        : shapeProblems(known, nested, name, location)),
    );
    if (problems.length >= maxReported) break;
  }
  return problems;
}
