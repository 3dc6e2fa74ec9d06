import type { Knex } from 'knex';
import { isErrorCode, kindOf } from '../../domain/error-catalogue';
import { AppError } from '../../domain/errors';

/**
 * The SQLSTATEs of the refusals the ledger's database functions raise
 * (db/migrations/20261124000000_posting_functions.ts).
 */
const refusalStates: ReadonlySet<string> = new Set(['CB404', 'CB409', 'CB422']);

/**
 * Runs a call of a ledger function; its refusal (SQLSTATE CB4xx, the code in DETAIL, of the catalogue's kind) becomes
 * the AppError the activities used to throw themselves. knex puts the statement, its values inlined, before
 * PostgreSQL's message: it is cut off at the last separator (a value may hold one; our messages do not).
 */
export async function ledgerCall<Row>(statement: Knex.Raw): Promise<Row> {
  return (await ledgerRows<Row>(statement))[0]!;
}

/**
 * ledgerCall for a statement that calls a ledger function once per row (a month end's postings, in bulk): every row.
 */
export async function ledgerRows<Row>(statement: Knex.Raw): Promise<Row[]> {
  try {
    const { rows } = (await statement) as { rows: Row[] };
    return rows;
  } catch (error) {
    const { code, detail, message } = error as { code?: string; detail?: string; message?: string };
    if (!refusalStates.has(code ?? '') || !isErrorCode(detail) || message === undefined) throw error;
    const statementEnd = message.lastIndexOf(' - ');
    throw new AppError(kindOf(detail), detail, statementEnd < 0 ? message : message.slice(statementEnd + 3));
  }
}
