import { parseImportDate, type CellProblem } from './cells';

/**
 * The rules of a members row and a member-accounts row beyond their cells' formats (docs/domain.md §15), given
 * what the activity looked up. Pure. Cells already refused by format are not judged again here.
 */

type Row = Readonly<Record<string, string>>;

/** The date of a cell when it reads as one, else null (its format problem is already reported). */
const dateOf = (row: Row, column: string) => parseImportDate(row[column] ?? '');

function notAfter(row: Row, column: string, limit: string, what: string): CellProblem[] {
  const date = dateOf(row, column);
  return date !== null && date > limit
    ? [{ column, value: row[column]!, problem: `after the ${what} (${limit})` }]
    : [];
}

/**
 * A person has a first and last name and a birth date and no legal name; a legal entity the reverse, and its business
 * register.
 */
export function memberProblems(row: Row, cutOverDate: string): CellProblem[] {
  const problems = notAfter(row, 'membership_date', cutOverDate, 'cut-over date');
  const person = row.kind === 'natural_person';
  if (row.kind !== 'natural_person' && row.kind !== 'legal_entity') return problems;
  const needed = person ? ['first_name', 'last_name', 'birth_date'] : ['legal_name'];
  const refused = person ? ['legal_name'] : ['first_name', 'last_name', 'birth_date', 'gender'];
  for (const column of needed)
    if ((row[column] ?? '') === '')
      problems.push({ column, value: '', problem: `required for a ${person ? 'person' : 'legal entity'}` });
  for (const column of refused)
    if ((row[column] ?? '') !== '')
      problems.push({ column, value: row[column]!, problem: `not for a ${person ? 'person' : 'legal entity'}` });
  if ((row.id_document_type === 'business_register') === person) {
    problems.push({
      column: 'id_document_type',
      value: row.id_document_type ?? '',
      problem: person
        ? "a person's document, not a business register"
        : "a legal entity's document is its business register",
    });
  }
  if (person) problems.push(...notAfter(row, 'birth_date', cutOverDate, 'cut-over date'));
  return problems;
}

/**
 * The opening on or before the cut-over; a term deposit with its maturity after the opening, and only it with one;
 * only a term deposit with a rate of its own (its contract's: empty, the product's).
 */
export function memberAccountProblems(row: Row, cutOverDate: string, productKind: string | undefined): CellProblem[] {
  const problems = notAfter(row, 'opened_on', cutOverDate, 'cut-over date');
  const maturity = row.maturity_date ?? '';
  if (productKind === 'term_deposit') {
    const opened = dateOf(row, 'opened_on');
    const matures = dateOf(row, 'maturity_date');
    if (maturity === '') problems.push({ column: 'maturity_date', value: '', problem: 'required for a term deposit' });
    else if (opened !== null && matures !== null && matures <= opened)
      problems.push({ column: 'maturity_date', value: maturity, problem: 'not after the opening' });
  } else if (productKind !== undefined) {
    if (maturity !== '')
      problems.push({ column: 'maturity_date', value: maturity, problem: 'only a term deposit has a maturity' });
    if ((row.interest_rate ?? '') !== '')
      problems.push({
        column: 'interest_rate',
        value: row.interest_rate!,
        problem: 'only a term deposit has a rate of its own',
      });
  }
  return problems;
}
