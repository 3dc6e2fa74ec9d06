import { ValidationError as YupValidationError, type Schema, type SchemaDescription, type SchemaFieldDescription } from 'yup';
import { ValidationError, type FieldError } from '../domain/errors';

export type InputLocation = 'path' | 'query' | 'body';

/**
 * Validates and converts one part of a request with its yup schema, reporting every invalid field at once
 * (`abortEarly: false`) and dropping unknown ones (`stripUnknown`), so handlers only ever see the validated
 * value, never the raw input.
 */
export async function validateInput<T>(schema: Schema<T>, input: unknown, location: InputLocation): Promise<T> {
  // A body field we do not know is a client mistake (a typo, a stale client): refuse it rather than ignore it.
  const unknown = location === 'body' ? unknownFields(schema.describe(), input, '') : [];
  if (unknown.length > 0) throw new ValidationError(unknown, 'The request body has unknown fields.');
  try {
    return await schema.validate(withDefaults(schema, input), { abortEarly: false, stripUnknown: true });
  } catch (error) {
    if (!(error instanceof YupValidationError)) throw error;
    throw new ValidationError(fieldErrors(error, location), `The request ${locationNoun[location]} has invalid fields.`);
  }
}

/**
 * Fills absent top-level fields with their schema defaults before validating: yup applies defaults while
 * casting, and strict fields (money strings, integers that must be JSON numbers) are never cast.
 */
function withDefaults(schema: Schema<unknown>, input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input) || schema.describe().type !== 'object') return input;
  const defaults = Object.entries((schema.getDefault() ?? {}) as Record<string, unknown>).filter(([key, value]) => value !== undefined && !(key in input));
  return defaults.length === 0 ? input : { ...Object.fromEntries(defaults), ...input };
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
  return errors;
}

function unknownFields(description: SchemaFieldDescription, value: unknown, prefix: string): FieldError[] {
  const fields = (description as SchemaDescription & { fields?: Record<string, SchemaFieldDescription> }).fields;
  if (description.type !== 'object' || fields === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [];
  }
  return Object.entries(value).flatMap(([key, nested]) => {
    const field = prefix === '' ? key : `${prefix}.${key}`;
    const known = fields[key];
    return known === undefined ? [{ field, message: `${field} is not a known field` }] : unknownFields(known, nested, field);
  });
}
