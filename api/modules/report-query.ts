import * as yup from 'yup';
import { formatParameter } from '../report-download';
import { bookScopeFields } from './book-scope';
import { isoDate } from './common.schemas';

/** A report's `branch` filter: one branch, or all the caller sees, added up. */
export const reportBranchFilter = yup
  .string()
  .uuid()
  .optional()
  .meta({ description: 'One branch; default: consolidated over the branches the caller sees.' });

/** The path of a chart's statements and reports. */
export const chartParams = yup.object({ chart_pk: yup.string().uuid().required() });

/** A chart's report at a date (the chart names the enterprise): the balance sheet, the prudential ratios. */
export const chartReportQuery = yup.object({
  date: isoDate().required(),
  branch: reportBranchFilter,
  format: formatParameter,
});

/** An enterprise's report at a date: the fixed-asset register, the arrears statement. */
export const enterpriseReportQuery = yup.object({
  enterprise: yup.string().uuid().required(),
  date: isoDate().required(),
  branch: reportBranchFilter,
  format: formatParameter,
});

/** The scope a report answers for: the enterprise, and the branch asked for or null. */
export const reportScopeResponse = bookScopeFields(
  'The branch asked for; null: consolidated (the branches the caller sees).',
);
