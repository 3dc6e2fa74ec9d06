import { ValidationError as YupValidationError, type Schema } from 'yup';
import { ValidationError, type FieldError } from '../domain/errors';

export type InputLocation = 'path' | 'query' | 'body';

/**
 * Validates and converts one part of a request with its yup schema, reporting every invalid field at once
 * (`abortEarly: false`) and dropping unknown ones (`stripUnknown`), so handlers only ever see the validated
 * value, never the raw input.
 */
export async function validateInput<T>(schema: Schema<T>, input: unknown, location: InputLocation): Promise<T> {
  try {
    return await schema.validate(input, { abortEarly: false, stripUnknown: true });
  } catch (error) {
    if (!(error instanceof YupValidationError)) throw error;
    throw new ValidationError(fieldErrors(error, location), `The request ${locationNoun[location]} has invalid fields.`);
  }
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
