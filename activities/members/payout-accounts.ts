import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';
import { CompteClient } from '../../db/models/compte-client.model';

/**
 * Where a term deposit goes at maturity (docs/domain.md §9): an open demand-deposit account of the same member,
 * named at opening, or else the member's first open demand account (the oldest, then by number).
 */
const openDemandAccounts = (trx: Knex.Transaction, clientId: string) =>
  CompteClient.query(trx)
    .join('savings_products as p', 'p.id', 'comptes_clients.product_id')
    .where({ 'comptes_clients.client_id': clientId, 'comptes_clients.status': 'open', 'p.kind': 'demand_deposit' })
    .select('comptes_clients.*')
    .orderBy([{ column: 'comptes_clients.opened_on' }, { column: 'comptes_clients.number' }]);

const payoutRefused = (message: string) =>
  new AppError('validation', 'invalid_request', message, [{ field: 'payout_account', message }]);

/** At opening: the account named (checked) or the member's first open demand account; refused when there is none. */
export async function payoutAccountAtOpening(
  trx: Knex.Transaction,
  clientId: string,
  wanted: string | null,
): Promise<CompteClient> {
  const candidates = await openDemandAccounts(trx, clientId)
    .modify((query) => {
      if (wanted !== null) query.where('comptes_clients.id', wanted);
    })
    .limit(1);
  const found = candidates[0];
  if (found !== undefined) return found;
  if (wanted !== null) throw payoutRefused('payout_account must be an open demand-deposit account of the same member');
  throw payoutRefused(
    'the member has no open demand-deposit account to receive the term deposit at maturity: open one first or name one',
  );
}

/**
 * At maturity: the account named at opening while it is open, else the member's first open demand account (the
 * named one may have been closed or frozen since); refused when the member has none, so the step can be rerun
 * once one is opened.
 */
async function payoutAccountAtMaturity(trx: Knex.Transaction, term: CompteClient): Promise<CompteClient> {
  const accounts = await openDemandAccounts(trx, term.clientId);
  const payout = accounts.find((account) => account.id === term.payoutAccountId) ?? accounts[0];
  if (payout === undefined)
    throw new AppError(
      'conflict',
      'no_payout_account',
      `Term deposit ${term.number} has matured and its member has no open demand-deposit account to receive it.`,
    );
  return payout;
}

/** The payout account at maturity, locked: money moves into it. */
export async function lockedPayoutAccount(trx: Knex.Transaction, term: CompteClient): Promise<CompteClient> {
  return CompteClient.query(trx)
    .findById((await payoutAccountAtMaturity(trx, term)).id)
    .forUpdate()
    .throwIfNotFound();
}
