import * as yup from 'yup';

/** A calendar date `YYYY-MM-DD` that exists (2026-02-30 does not). */
export const isoDate = () =>
  yup
    .string()
    .matches(/^\d{4}-\d{2}-\d{2}$/, '${path} must be a date as YYYY-MM-DD')
    // Only a well-formed value can be a wrong date: a malformed one gets the format message alone.
    .test('real-date', '${path} is not a real date', (value) => value === undefined || value === null || !/^\d{4}-\d{2}-\d{2}$/.test(value) || isRealDate(value));

function isRealDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

export const idParams = yup.object({ id: yup.string().uuid().required() });

/** The `enterprise` filter of flat lists and details (the nested paths force it). */
export const enterpriseFilter = yup.string().uuid().optional().meta({ description: 'Only this enterprise.' });

/** A short business code: letters, digits, '-' and '_'. */
export const codeSchema = (max: number) =>
  yup.string().trim().required().max(max).matches(/^[A-Za-z0-9_-]+$/, '${path} may hold letters, digits, - and _ only');
