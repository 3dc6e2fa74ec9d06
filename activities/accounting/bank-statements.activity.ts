import type { Knex } from 'knex';
import { parseBankStatement } from '../../domain/accounting/bank-statement-csv';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';

/** The days a statement line and a ledger line may lie apart and still match automatically, unless the import says. */
export const matchWindowDaysDefault = 5;

interface BankAccountRef {
  id: string;
  enterprise_id: string;
  chart_entry_id: string;
}

async function lockedBankAccount(trx: Knex.Transaction, bankAccountId: string): Promise<BankAccountRef> {
  const account = await trx('bank_accounts')
    .where({ id: bankAccountId })
    .forUpdate()
    .first('id', 'enterprise_id', 'chart_entry_id');
  if (account === undefined) throw new NotFoundError('The bank account');
  return account as BankAccountRef;
}

/** The bank account's ledger lines no statement line matches yet: `journal_lines` as `l`, with its entry as `e`. */
const unmatchedLedgerLines = (trx: Knex.Transaction, account: BankAccountRef) =>
  trx('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .where('l.chart_entry_id', account.chart_entry_id)
    .whereNotExists(trx('bank_statement_lines as m').whereRaw('m.journal_line_id = l.id'));

/**
 * Matches each unmatched statement line of the account to an unmatched ledger line of the same amount (the bank's
 * credit is the account's debit), dated within `windowDays`, whose entry's description holds the line's reference
 * when it has one; the nearest date first. Returns how many it matched. The account is locked by the caller.
 */
async function matchAutomatically(trx: Knex.Transaction, account: BankAccountRef, windowDays: number): Promise<number> {
  const lines = await trx('bank_statement_lines')
    .where({ bank_account_id: account.id })
    .whereNull('journal_line_id')
    .orderBy(['line_date', 'position'])
    .select(
      'id',
      trx.raw("to_char(line_date, 'YYYY-MM-DD') AS line_date"),
      'reference',
      trx.raw('amount::text AS amount'),
    );
  let matched = 0;
  for (const line of lines) {
    const candidate = unmatchedLedgerLines(trx, account)
      .whereRaw('l.debit - l.credit = ?::numeric', [line.amount])
      .whereRaw('abs(e.entry_date - ?::date) <= ?', [line.line_date, windowDays]);
    if (line.reference !== '')
      candidate.whereRaw('e.description ILIKE ?', [`%${(line.reference as string).replace(/[\\%_]/g, '\\$&')}%`]);
    const found = await candidate.orderByRaw('abs(e.entry_date - ?::date), l.id', [line.line_date]).first('l.id');
    if (found === undefined) continue;
    await trx('bank_statement_lines').where({ id: line.id }).update({ journal_line_id: found.id, matched_how: 'auto' });
    matched += 1;
  }
  return matched;
}

/**
 * Imports a bank statement (docs/domain.md §12.6): the file parsed and refused whole on its first bad cell, its
 * lines stored, then matched automatically to the account's ledger lines. One transaction: all or nothing.
 */
export async function importBankStatement(
  context: ActivityContext,
  actor: Actor,
  input: { bankAccountId: string; fileName: string; bytes: Uint8Array; windowDays: number },
): Promise<{ statementId: string; matched: number }> {
  const parsed = parseBankStatement(input.bytes);
  return inTransaction(context.knex, async (trx) => {
    const account = await lockedBankAccount(trx, input.bankAccountId);
    const [statement] = await trx('bank_statements')
      .insert({
        enterprise_id: account.enterprise_id,
        bank_account_id: account.id,
        file_name: input.fileName,
        line_count: parsed.length,
        imported_by: actor.userId,
      })
      .returning('id');
    for (let start = 0; start < parsed.length; start += 500) {
      await trx('bank_statement_lines').insert(
        parsed.slice(start, start + 500).map((line) => ({
          enterprise_id: account.enterprise_id,
          statement_id: statement.id,
          bank_account_id: account.id,
          position: line.position,
          line_date: line.date,
          value_date: line.valueDate,
          label: line.label,
          reference: line.reference,
          amount: formatAmount(line.amount),
          balance: line.balance === null ? null : formatAmount(line.balance),
        })),
      );
    }
    const matched = await matchAutomatically(trx, account, input.windowDays);
    await recordAudit(trx, actor, {
      action: 'bank_statement.import',
      entityType: 'bank_statement',
      entityId: statement.id,
      enterpriseId: account.enterprise_id,
      details: {
        bank_account: account.id,
        file_name: input.fileName,
        lines: parsed.length,
        matched,
        window_days: input.windowDays,
      },
    });
    return { statementId: statement.id as string, matched };
  });
}

/** Matches a statement line by hand to a ledger line of its bank account of the same amount, neither matched yet. */
export async function matchStatementLine(
  context: ActivityContext,
  actor: Actor,
  lineId: string,
  journalLineId: string,
): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const line = await trx('bank_statement_lines')
      .where({ id: lineId })
      .forUpdate()
      .first('bank_account_id', 'journal_line_id', trx.raw('amount::text AS amount'));
    if (line === undefined) throw new NotFoundError('The statement line');
    const account = await lockedBankAccount(trx, line.bank_account_id);
    if (line.journal_line_id !== null)
      throw new AppError(
        'conflict',
        'bank_statement_line_matched',
        'The statement line is matched already: unmatch it first.',
      );
    const ledger = await trx('journal_lines')
      .where({ id: journalLineId, chart_entry_id: account.chart_entry_id })
      .first(trx.raw('(debit - credit)::text AS amount'));
    if (ledger === undefined || ledger.amount !== line.amount) {
      throw new AppError(
        'unprocessable',
        'bank_statement_match_refused',
        'journal_line is not a line of the bank account of the same amount.',
        [{ field: 'journal_line', message: 'journal_line must be a line of the bank account of the same amount' }],
      );
    }
    if ((await trx('bank_statement_lines').where({ journal_line_id: journalLineId }).first('id')) !== undefined) {
      throw new AppError(
        'conflict',
        'bank_statement_line_matched',
        'The ledger line is matched to another statement line already.',
        [{ field: 'journal_line', message: 'journal_line is matched already' }],
      );
    }
    await trx('bank_statement_lines')
      .where({ id: lineId })
      .update({ journal_line_id: journalLineId, matched_how: 'manual' });
    await recordAudit(trx, actor, {
      action: 'bank_statement_line.match',
      entityType: 'bank_statement_line',
      entityId: lineId,
      enterpriseId: account.enterprise_id,
      details: { journal_line: journalLineId },
    });
  });
}

/** Undoes a statement line's match, automatic or by hand: both lines are unmatched again. */
export async function unmatchStatementLine(context: ActivityContext, actor: Actor, lineId: string): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const line = await trx('bank_statement_lines as s')
      .join('bank_accounts as b', 'b.id', 's.bank_account_id')
      .where('s.id', lineId)
      .forUpdate()
      .first('s.journal_line_id', 'b.enterprise_id');
    if (line === undefined) throw new NotFoundError('The statement line');
    await trx('bank_statement_lines').where({ id: lineId }).update({ journal_line_id: null, matched_how: null });
    await recordAudit(trx, actor, {
      action: 'bank_statement_line.unmatch',
      entityType: 'bank_statement_line',
      entityId: lineId,
      enterpriseId: line.enterprise_id,
      details: { journal_line: line.journal_line_id },
    });
  });
}
