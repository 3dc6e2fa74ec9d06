import type { Knex } from 'knex';
import { AppError, type ErrorKind } from '../../domain/errors';

/** The kinds of the refusals the ledger's database functions raise (db/migrations/20261124000000_posting_functions.ts). */
const refusalKinds: Readonly<Record<string, ErrorKind>> = { CB404: 'not_found', CB409: 'conflict', CB422: 'unprocessable' };

/**
 * Runs a call of a ledger function; its refusal (SQLSTATE CB4xx, the code in DETAIL) becomes the AppError the
 * activities used to throw themselves. knex puts the statement, its values
 * inlined, before PostgreSQL's message: it is cut off at the last separator (a value may hold one; our messages do not).
 */
export async function ledgerCall<Row>(statement: Knex.Raw): Promise<Row> {
  try {
    const { rows } = (await statement) as { rows: Row[] };
    return rows[0]!;
  } catch (error) {
    const { code, detail, message } = error as { code?: string; detail?: string; message?: string };
    const kind = refusalKinds[code ?? ''];
    if (kind === undefined || detail === undefined || message === undefined) throw error;
    const statementEnd = message.lastIndexOf(' - ');
    throw new AppError(kind, detail, statementEnd < 0 ? message : message.slice(statementEnd + 3));
  }
}
