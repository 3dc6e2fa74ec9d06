import type { Knex } from 'knex';
import type { DraftLine, ManualJournal } from '../../domain/accounting/manual-entries';
import {
  isDuePeriod,
  proposalDate,
  proposalReference,
  type RecurringFrequency,
  type RecurringSchedule,
} from '../../domain/accounting/recurring-entries';
import { addMonthsClamped, parseIsoDate } from '../../domain/calendar';
import { AppError, NotFoundError } from '../../domain/errors';
import { Money, formatAmount } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { changedValues, recordAudit } from '../audit';
import type { Actor, DataContext, Requester } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { branchOfLines, createManualEntry } from './manual-entries.activity';
import { checkModelLines } from './manual-entry-checks';

/**
 * Recurring manual entries (docs/domain.md §12.7): an accountant's model (the monthly rent) from which a draft
 * manual entry is proposed each period it is due, by the enterprise's daily Schedule or on request. A draft still
 * goes through the manual entries' four eyes. One proposal per model and period: the model's row is locked and
 * `recurring_entry_proposals` is unique, so a rerun or a retry proposes nothing twice.
 */

export interface RecurringEntryFields extends RecurringSchedule {
  journal: ManualJournal;
  label: string;
  referencePattern: string;
  lines: DraftLine[];
}

export interface RecurringEntryRow {
  id: string;
  enterprise_id: string;
  branch_id: string | null;
  journal_code: ManualJournal;
  label: string;
  reference_pattern: string;
  frequency: RecurringFrequency;
  day_of_period: number;
  first_period: string;
  last_period: string | null;
  active: boolean;
  updated_by: string;
}

const modelColumns = (fields: Partial<RecurringEntryFields>) =>
  Object.fromEntries(
    Object.entries({
      journal_code: fields.journal,
      label: fields.label,
      reference_pattern: fields.referencePattern,
      frequency: fields.frequency,
      day_of_period: fields.dayOfPeriod,
      first_period: fields.firstPeriod,
      last_period: fields.lastPeriod,
    }).filter(([, value]) => value !== undefined),
  );

const modelLineRows = (enterpriseId: string, modelId: string, lines: readonly DraftLine[]) =>
  lines.map(({ account, branchId, debit, credit, label }, position) => ({
    enterprise_id: enterpriseId,
    recurring_entry_id: modelId,
    position,
    account_code: account,
    branch_id: branchId,
    debit: formatAmount(debit),
    credit: formatAmount(credit),
    label,
  }));

/** A model's lines in order, as a draft's. */
async function recurringEntryLines(knex: Knex | Knex.Transaction, modelId: string): Promise<DraftLine[]> {
  const rows: { account_code: string; branch_id: string; debit: string; credit: string; label: string | null }[] =
    await knex('recurring_entry_lines')
      .where({ recurring_entry_id: modelId })
      .orderBy('position')
      .select('account_code', 'branch_id', 'debit', 'credit', 'label');
  return rows.map((row) => ({
    account: row.account_code,
    branchId: row.branch_id,
    debit: new Money(row.debit),
    credit: new Money(row.credit),
    label: row.label,
  }));
}

async function lockModel(trx: Knex.Transaction, id: string): Promise<RecurringEntryRow> {
  const row = (await trx('recurring_entries').where({ id }).forUpdate().first()) as RecurringEntryRow | undefined;
  if (row === undefined) throw new NotFoundError('The recurring entry');
  return row;
}

const assertOrdered = (first: string, last: string | null) => {
  if (last !== null && last < first)
    throw new AppError('unprocessable', 'recurring_entry_periods', 'The last period comes before the first.', [
      { field: 'last_period', message: 'is before first_period' },
    ]);
};

export async function createRecurringEntry(
  context: DataContext,
  actor: Actor,
  model: RecurringEntryFields & { enterpriseId: string },
): Promise<string> {
  return inTransaction(context.knex, async (trx) => {
    assertOrdered(model.firstPeriod, model.lastPeriod);
    await checkModelLines(trx, model);
    const [created] = await trx('recurring_entries')
      .insert({
        ...modelColumns(model),
        enterprise_id: model.enterpriseId,
        branch_id: branchOfLines(model.lines),
        created_by: actor.userId,
        updated_by: actor.userId,
      })
      .returning('id');
    const id = created.id as string;
    await trx('recurring_entry_lines').insert(modelLineRows(model.enterpriseId, id, model.lines));
    await recordAudit(trx, actor, {
      action: 'recurring_entry.create',
      entityType: 'recurring_entry',
      entityId: id,
      enterpriseId: model.enterpriseId,
      details: {
        journal: model.journal,
        reference_pattern: model.referencePattern,
        frequency: model.frequency,
        first_period: model.firstPeriod,
        lines: model.lines.length,
      },
    });
    return id;
  });
}

/** Changes a model: the fields sent, the lines whole. Drafts already proposed keep what they were proposed with. */
export async function updateRecurringEntry(
  context: DataContext,
  actor: Actor,
  id: string,
  changes: Partial<RecurringEntryFields>,
): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const row = await lockModel(trx, id);
    assertOrdered(
      changes.firstPeriod ?? row.first_period,
      changes.lastPeriod === undefined ? row.last_period : changes.lastPeriod,
    );
    const lines = changes.lines ?? (await recurringEntryLines(trx, id));
    await checkModelLines(trx, { enterpriseId: row.enterprise_id, lines });
    const [updated] = await trx('recurring_entries')
      .where({ id })
      .update({ ...modelColumns(changes), branch_id: branchOfLines(lines), updated_by: actor.userId })
      .returning('*');
    if (changes.lines !== undefined) {
      await trx('recurring_entry_lines').where({ recurring_entry_id: id }).delete();
      await trx('recurring_entry_lines').insert(modelLineRows(row.enterprise_id, id, lines));
    }
    await recordAudit(trx, actor, {
      action: 'recurring_entry.update',
      entityType: 'recurring_entry',
      entityId: id,
      enterpriseId: row.enterprise_id,
      details: { lines_changed: changes.lines !== undefined },
      ...changedValues(modelColumns(changes), row, updated as RecurringEntryRow),
    });
  });
}

/** A model no longer proposes; it is kept, with the drafts it proposed. */
export async function deactivateRecurringEntry(context: DataContext, actor: Actor, id: string): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const row = await lockModel(trx, id);
    if (!row.active) return;
    await trx('recurring_entries').where({ id }).update({ active: false, updated_by: actor.userId });
    await recordAudit(trx, actor, {
      action: 'recurring_entry.deactivate',
      entityType: 'recurring_entry',
      entityId: id,
      enterpriseId: row.enterprise_id,
      details: {},
    });
  });
}

const schedule = (row: RecurringEntryRow): RecurringSchedule => ({
  frequency: row.frequency,
  dayOfPeriod: row.day_of_period,
  firstPeriod: row.first_period,
  lastPeriod: row.last_period,
});
const onPeriod = (message: string) => [{ field: 'period', message }];

/**
 * The draft of a model for a period, proposed once: the one already proposed is answered (`created: false`).
 * Refused when the model is inactive, not due in that period, or due after the business date (it waits).
 * The draft's author is the person asking, else (the Schedule) the system: null, not the model's last author, who
 * did nothing that day and may then validate it like anyone but the draft's submitter (docs/domain.md §12.7).
 */
type Proposal = { manualEntryId: string; created: boolean };

export async function proposeRecurringEntry(
  context: DataContext,
  actor: Requester | null,
  input: { id: string; period: string },
): Promise<Proposal> {
  return inTransaction(context.knex, async (trx) => {
    const row = await lockModel(trx, input.id);
    const existing = await trx('recurring_entry_proposals')
      .where({ recurring_entry_id: row.id, period: input.period })
      .first('manual_entry_id');
    if (existing !== undefined) return { manualEntryId: existing.manual_entry_id as string, created: false };
    if (!row.active) throw new AppError('conflict', 'recurring_entry_inactive', 'The recurring entry is deactivated.');
    if (!isDuePeriod(schedule(row), input.period)) {
      throw new AppError(
        'unprocessable',
        'recurring_entry_not_due',
        `The model is not due in ${input.period}.`,
        onPeriod('is not a period of the model'),
      );
    }
    const entryDate = proposalDate(input.period, row.day_of_period);
    const businessDate = await businessDateOf(trx, row.enterprise_id, context.clock());
    if (entryDate > businessDate) {
      const message = `The draft is dated ${entryDate}, after the business date ${businessDate}.`;
      throw new AppError(
        'unprocessable',
        'recurring_entry_not_due',
        message,
        onPeriod('is due after the business date'),
      );
    }
    const manualEntryId = await createManualEntry({ ...context, knex: trx }, actor, {
      enterpriseId: row.enterprise_id,
      kind: 'standard',
      journal: row.journal_code,
      entryDate,
      reference: proposalReference(row.reference_pattern, input.period),
      label: row.label,
      lines: await recurringEntryLines(trx, row.id),
    });
    await trx('recurring_entry_proposals').insert({
      enterprise_id: row.enterprise_id,
      recurring_entry_id: row.id,
      period: input.period,
      manual_entry_id: manualEntryId,
    });
    await recordAudit(trx, actor, {
      action: 'recurring_entry.propose',
      entityType: 'recurring_entry',
      entityId: row.id,
      enterpriseId: row.enterprise_id,
      details: { period: input.period, manual_entry: manualEntryId },
    });
    return { manualEntryId, created: true };
  });
}

/**
 * The Schedule's daily pass over an enterprise: each active model due in the business date's month or the one
 * before (a last day missed while Temporal was down), dated by the business date, not yet proposed, gets its draft.
 * A model refused (an account deactivated since) is answered, not retried: the others still get theirs, and the
 * refusal is in the workflow's result.
 */
export interface DueProposals {
  proposed: string[];
  refused: { model: string; code: string }[];
}

export async function proposeDueRecurringEntries(
  context: DataContext,
  input: { enterpriseId: string },
): Promise<DueProposals> {
  const businessDate = await businessDateOf(context.knex, input.enterpriseId, context.clock());
  const result: DueProposals = { proposed: [], refused: [] };
  for (const period of [addMonthsClamped(parseIsoDate(businessDate), -1).slice(0, 7), businessDate.slice(0, 7)]) {
    const models = (await context
      .knex('recurring_entries')
      .where({ enterprise_id: input.enterpriseId, active: true })
      .whereNotExists((query) =>
        query
          .from('recurring_entry_proposals as p')
          .whereRaw('p.recurring_entry_id = recurring_entries.id')
          .where('p.period', period),
      )
      .orderBy('created_at')) as RecurringEntryRow[];
    for (const model of models.filter(
      (row) => isDuePeriod(schedule(row), period) && proposalDate(period, row.day_of_period) <= businessDate,
    )) {
      try {
        const { manualEntryId, created } = await proposeRecurringEntry(context, null, { id: model.id, period });
        if (created) result.proposed.push(manualEntryId);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        result.refused.push({ model: model.id, code: error.code });
      }
    }
  }
  return result;
}
