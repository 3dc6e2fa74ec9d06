import type { Knex } from 'knex';
import { balanceRefusal, classMixRefusal, type DraftLine } from '../../domain/accounting/manual-entries';
import type { IsoDate } from '../../domain/calendar';
import { AppError, ValidationError } from '../../domain/errors';
import type { Refusal } from '../../domain/refusal';
import { subledgerAccounts } from './subledger-accounts';
import { assertNotAfterBusinessDate } from './supplier-books';

/**
 * The refusals of a manual entry (docs/domain.md §12.1), read where they live: when it is saved, and again in the
 * posting's transaction (an account may have been deactivated, a year closed, a product created since).
 */

export interface DraftToCheck {
  enterpriseId: string;
  entryDate: IsoDate;
  lines: readonly DraftLine[];
  /**
   * A go-live import's opening entry (or its reversal) may name subledger accounts: the import creates their detail,
   * tied out to the franc.
   */
  importId?: string | null;
}

/** Lines without a date yet: a recurring model's (docs/domain.md §12.7). */
type LinesToCheck = Omit<DraftToCheck, 'entryDate'>;

const refused = (found: Refusal) =>
  new AppError(
    found.kind,
    found.code,
    found.message,
    found.field === undefined ? [] : [{ field: found.field, message: found.message }],
  );
const onLine = (index: number, field: string, message: string) => [{ field: `lines[${index}].${field}`, message }];

/** Each line's account is a postable account of the chart (a leaf, active) that no subledger keeps. */
async function checkAccounts(trx: Knex.Transaction, draft: LinesToCheck): Promise<void> {
  const codes = [...new Set(draft.lines.map((line) => line.account))];
  const chart = new Map(
    (
      (await trx('company_chart_entries as c')
        .where('c.enterprise_id', draft.enterpriseId)
        .whereIn('c.code', codes)
        .select(
          'c.code',
          'c.is_active',
          trx.raw('EXISTS (SELECT 1 FROM company_chart_leaves leaf WHERE leaf.id = c.id) AS is_leaf'),
        )) as { code: string; is_active: boolean; is_leaf: boolean }[]
    ).map((row) => [row.code, row]),
  );
  const kept = await subledgerAccounts(trx, draft.enterpriseId);
  for (const [index, line] of draft.lines.entries()) {
    const account = chart.get(line.account);
    if (account === undefined)
      throw new AppError(
        'unprocessable',
        'account_unknown',
        `Account ${line.account} is not in the enterprise's chart.`,
        onLine(index, 'account', 'is not in the chart'),
      );
    if (!account.is_active)
      throw new AppError(
        'unprocessable',
        'account_inactive',
        `Account ${line.account} is deactivated.`,
        onLine(index, 'account', 'is deactivated'),
      );
    if (!account.is_leaf)
      throw new AppError(
        'unprocessable',
        'account_not_leaf',
        `Account ${line.account} has sub-accounts: post to one of them.`,
        onLine(index, 'account', 'has sub-accounts'),
      );
    const subledger = kept.get(line.account);
    if (subledger !== undefined && (draft.importId ?? null) === null) {
      throw new AppError(
        'unprocessable',
        'manual_entry_subledger_account',
        `Account ${line.account} is kept by the ${subledger} subledger: only its own operations move it.`,
        onLine(index, 'account', `is kept by the ${subledger} subledger`),
      );
    }
  }
}

async function checkBranches(trx: Knex.Transaction, draft: LinesToCheck): Promise<void> {
  const branches = new Set(
    (await trx('branches').where({ enterprise_id: draft.enterpriseId }).pluck('id')) as string[],
  );
  const index = draft.lines.findIndex((line) => !branches.has(line.branchId));
  if (index >= 0) throw new ValidationError(onLine(index, 'branch', 'is not a branch of the enterprise'));
}

/** The date is in an open accounting year, not after the business date and not in a closed day. */
async function checkDate(trx: Knex.Transaction, now: Date, draft: DraftToCheck): Promise<void> {
  const onDate = (message: string) => [{ field: 'entry_date', message }];
  const year = await trx('exercices_comptables')
    .where({ enterprise_id: draft.enterpriseId })
    .where('start_date', '<=', draft.entryDate)
    .where('end_date', '>=', draft.entryDate)
    .first('code', 'status');
  if (year === undefined)
    throw new AppError(
      'conflict',
      'no_exercice_for_date',
      `No accounting year of the enterprise covers ${draft.entryDate}.`,
      onDate('is in no accounting year'),
    );
  if (year.status !== 'open')
    throw new AppError(
      'conflict',
      'exercice_closed',
      `The accounting year ${year.code as string} is closed.`,
      onDate('is in a closed year'),
    );
  await assertNotAfterBusinessDate(trx, draft.enterpriseId, now, draft.entryDate, 'entry_date');
}

/** What any draft must be when saved: an unbalanced one may be saved, and is refused only when submitted. */
export async function checkDraft(trx: Knex.Transaction, now: Date, draft: DraftToCheck): Promise<void> {
  await checkLines(trx, draft);
  await checkDate(trx, now, draft);
}

/**
 * What the lines must be whatever their date: off-balance apart, the enterprise's branches, accounts no subledger
 * keeps.
 */
async function checkLines(trx: Knex.Transaction, draft: LinesToCheck): Promise<void> {
  const mixed = classMixRefusal(draft.lines);
  if (mixed !== null) throw refused(mixed);
  await checkBranches(trx, draft);
  await checkAccounts(trx, draft);
}

/** A recurring model's lines: those of a draft, and balanced, since each proposal is submitted as it is. */
export async function checkModelLines(trx: Knex.Transaction, model: LinesToCheck): Promise<void> {
  await checkLines(trx, model);
  const unbalanced = balanceRefusal(model.lines);
  if (unbalanced !== null) throw refused(unbalanced);
}

/** What a draft must be to be submitted and posted: all the above, and balanced in total and per branch. */
export async function checkPostable(trx: Knex.Transaction, now: Date, draft: DraftToCheck): Promise<void> {
  await checkDraft(trx, now, draft);
  const unbalanced = balanceRefusal(draft.lines);
  if (unbalanced !== null) throw refused(unbalanced);
}
