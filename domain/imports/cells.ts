import type { ImportColumn, ImportKind } from './templates';
import { importTemplates } from './templates';

/**
 * Reading one row of an import file (docs/domain.md §15): each cell by its column's format, pure. A problem names
 * the column, the value as written and what is wrong, in a sentence the cooperative's staff can act on.
 */

export interface CellProblem {
  column: string;
  value: string;
  problem: string;
}

const dateFormats: readonly { pattern: RegExp; order: 'ymd' | 'dmy' }[] = [
  { pattern: /^(\d{4})-(\d{2})-(\d{2})$/, order: 'ymd' },
  { pattern: /^(\d{2})\/(\d{2})\/(\d{4})$/, order: 'dmy' },
  { pattern: /^(\d{2})-(\d{2})-(\d{4})$/, order: 'dmy' },
];

/** YYYY-MM-DD, DD/MM/YYYY or DD-MM-YYYY (the day first, as in French) to an ISO date; null when none or no such day. */
export function parseImportDate(text: string): string | null {
  for (const { pattern, order } of dateFormats) {
    const match = pattern.exec(text);
    if (match === null) continue;
    const [year, month, day] = order === 'ymd' ? [match[1]!, match[2]!, match[3]!] : [match[3]!, match[2]!, match[1]!];
    const iso = `${year}-${month}-${day}`;
    const date = new Date(`${iso}T00:00:00Z`);
    return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== iso ? null : iso;
  }
  return null;
}

/** Thousands grouped by spaces (also the no-break ones spreadsheets write), a comma before zero decimals. */
const frenchAmount = /^-?\d{1,3}(?:[ \u00a0\u202f]\d{3})*(?:,0{1,2})?$|^-?\d+,0{1,2}$/;
const plainAmount = /^-?\d+(?:\.0{1,2})?$/;

/** An amount in whole francs as a canonical integer string, or the reason it is not one. */
export function parseImportAmount(text: string, frenchStyle: boolean): { amount: string } | { problem: string } {
  if (plainAmount.test(text)) return { amount: canonical(text.replace(/\.0+$/, '')) };
  if (frenchStyle && frenchAmount.test(text))
    return { amount: canonical(text.replace(/[ \u00a0\u202f]/g, '').replace(/,0+$/, '')) };
  if (/^-?[\d \u00a0\u202f]+[.,]\d+$/.test(text) && /[.,]0*[1-9]/.test(text))
    return { problem: 'not a whole number of francs (XAF has no minor unit)' };
  return {
    problem: frenchStyle
      ? 'not an amount: digits, thousands grouped by spaces, optionally ",00"'
      : 'not an amount: plain digits only in this column',
  };
}

const canonical = (digits: string) => {
  const negative = digits.startsWith('-');
  const body = digits.replace(/^-/, '').replace(/^0+(?=\d)/, '');
  return negative && body !== '0' ? `-${body}` : body;
};

const codeText = /^[A-Za-z0-9_./-]{1,40}$/;

/** A rate cell as the templates write it: a fraction between 0 and 1 with a point. */
export const isImportRate = (text: string): boolean => /^(0(\.\d{1,6})?|1(\.0{1,6})?)$/.test(text);

function cellProblem(column: ImportColumn, value: string): string | null {
  switch (column.format) {
    case 'date':
      return parseImportDate(value) === null ? 'not a date: YYYY-MM-DD, DD/MM/YYYY or DD-MM-YYYY' : null;
    case 'amount': {
      const parsed = parseImportAmount(value, column.frenchStyle === true);
      if ('problem' in parsed) return parsed.problem;
      return column.notNegative === true && parsed.amount.startsWith('-')
        ? 'negative: impossible in this column'
        : null;
    }
    case 'integer':
      return /^\d{1,9}$/.test(value) ? null : 'not a whole number';
    case 'rate':
      return isImportRate(value) ? null : 'not a rate: a fraction between 0 and 1 with a point, e.g. 0.045';
    case 'code':
      if (column.codes !== undefined)
        return column.codes.includes(value) ? null : `not one of ${column.codes.join(', ')}`;
      return codeText.test(value) ? null : 'not a code';
    case 'text':
      return value.length > 200 ? 'longer than 200 characters' : null;
  }
}

/**
 * The problems of one row taken alone: a formula, a required cell left empty, a cell not in its column's format.
 * Checks across rows and against the enterprise's data are the activity's (activities/imports/validation.ts).
 */
export function rowProblems(
  kind: ImportKind,
  data: Readonly<Record<string, string>>,
  formulas: readonly string[],
): CellProblem[] {
  const problems: CellProblem[] = [];
  for (const column of importTemplates[kind]) {
    const value = data[column.name] ?? '';
    if (formulas.includes(column.name))
      problems.push({
        column: column.name,
        value,
        problem: 'a formula: type the value itself (formulas are never evaluated)',
      });
    else if (value === '') {
      if (column.required) problems.push({ column: column.name, value, problem: 'required' });
    } else {
      const problem = cellProblem(column, value);
      if (problem !== null) problems.push({ column: column.name, value, problem });
    }
  }
  return problems;
}
