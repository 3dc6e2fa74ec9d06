import * as yup from 'yup';
import type { SchemaMeta } from '../json-schema';
import { firstHandledDate as dateMin, lastHandledDate as dateMax } from '../../domain/calendar';
import { isPeriod, periodFormat } from '../../domain/enterprise/month-end';

/** A calendar date `YYYY-MM-DD` that exists (2026-02-30 does not), from 1900 to 2999. */
export const isoDate = () =>
  yup
    .string()
    .matches(/^\d{4}-\d{2}-\d{2}$/, '${path} must be a date as YYYY-MM-DD')
    // Only a well-formed value can be a wrong date: a malformed one gets the format message alone.
    .test(
      'real-date',
      '${path} is not a real date',
      (value) => value === undefined || value === null || !/^\d{4}-\d{2}-\d{2}$/.test(value) || isRealDate(value),
    )
    .test(
      'date-range',
      `\${path} must be from ${dateMin} to ${dateMax}`,
      (value) =>
        value === undefined ||
        value === null ||
        !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
        (value >= dateMin && value <= dateMax),
    );

/** A month `YYYY-MM` that exists, from 1900-01 to 2999-12: the dates' bounds (domain/calendar.ts). */
export const periodSchema = () =>
  yup
    .string()
    .matches(periodFormat, '${path} must be a month as YYYY-MM')
    .test(
      'period',
      `\${path} must be a month from ${dateMin.slice(0, 7)} to ${dateMax.slice(0, 7)}`,
      (value) => value === undefined || !periodFormat.test(value) || isPeriod(value),
    );

function isRealDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

export const idParams = yup.object({ id: yup.string().uuid().required() });

/** The `enterprise` filter of flat lists and details (the nested paths force it). */
export const enterpriseFilter = yup.string().uuid().optional().meta({ description: 'Only this enterprise.' });

/** A short business code: letters, digits, '-' and '_'. */
export const codeSchema = (max: number) =>
  yup
    .string()
    .trim()
    .required()
    .max(max)
    .matches(/^[A-Za-z0-9_-]+$/, '${path} may hold letters, digits, - and _ only');

/** A rate as a decimal string from 0 to 1 with up to 6 decimals ("0.035" = 3.5 %): never a float. */
export const rateSchema = () =>
  yup
    .string()
    .strict(true)
    .matches(/^(0(\.\d{1,6})?|1(\.0{1,6})?)$/, '${path} must be a decimal from 0 to 1, e.g. "0.035"');

/** An account code of the chart. */
export const accountCodeSchema = () => yup.string().matches(/^\d{2,12}$/, '${path} must be an account code');

/** A calendar date as answered, `YYYY-MM-DD` (`format: date`); `.nullable()` where it may be absent. */
export const dateResponse = () =>
  yup
    .string()
    .required()
    .meta({ format: 'date' } satisfies SchemaMeta);

/** The id of a row an answer names, or null where there is none (always present in the answer). */
export const nullableId = (description?: string) => {
  const id = yup.string().uuid().nullable().defined();
  return description === undefined ? id : id.meta({ description });
};

/**
 * Whether balances read at a date are provisional: the earlier accounting years not yet closed whose balances they
 * carry by computation.
 */
export const provisionalResponse = {
  provisional: yup
    .boolean()
    .required()
    .meta({
      description:
        'True when an earlier accounting year is not closed yet: its balances are carried ' +
        'forward by computation (never posted), its result as pending allocation (13).',
    }),
  open_exercices: yup
    .array(yup.string().required())
    .required()
    .meta({ description: 'The codes of those earlier years, oldest first; empty when not provisional.' }),
};

export const timestampResponse = () =>
  yup
    .string()
    .required()
    .meta({ format: 'date-time' } satisfies SchemaMeta);
