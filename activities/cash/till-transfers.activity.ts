import type { Knex } from 'knex';
import { holdsRole } from '../../domain/access';
import { countTotal, fullCount, type CashCount } from '../../domain/cash/till-counts';
import { cashMove, transferSides, transitAccount, type TillTransferKind } from '../../domain/cash/till-transfers';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { Till } from '../../db/models/till.model';
import { TillTransfer } from '../../db/models/till-transfer.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { postJournalEntry } from '../events/post-entry';
import { tillBalance } from './tills.queries';

/**
 * Cash between a branch's vault and its tills (issue 29, docs/domain.md §13.2). The giver requests: the cash
 * leaves their account for 459 at once. The receiver confirms with a count equal to the amount: the cash enters
 * their account from 459. A pending transfer is cancelled by its maker only: the cash goes back from 459.
 */

export interface TillTransferInput {
  tillId: string;
  kind: TillTransferKind;
  amount: Money;
  count: CashCount | null;
}

/** The vault's side is kept by the branch head (or the roles above the branch); a till's side by its cashier. */
const vaultKeepers = ['branch_head', 'direction', 'admin'] as const;

function assertSide(actor: Actor, till: Till, side: 'vault' | 'till'): void {
  const allowed =
    side === 'vault'
      ? holdsRole(actor.grants, vaultKeepers, { enterpriseId: till.enterpriseId, branchId: till.branchId })
      : till.cashierId === actor.userId;
  if (!allowed) {
    const whose =
      side === 'vault'
        ? "The vault's side of a transfer is the branch head's."
        : "The till's side of a transfer is its cashier's.";
    throw new AppError('forbidden', 'till_transfer_side_refused', whose);
  }
}

/**
 * The till's open session, share-locked as a cash operation holds it (coopbank_cash_account): its close waits for
 * the transfer, so the balance it counts includes it, and a transfer after the close finds it closed.
 */
async function assertSessionOpen(trx: Knex.Transaction, till: Till): Promise<void> {
  const open = await trx('till_sessions').where({ till_id: till.id, status: 'open' }).forShare().first('id');
  if (open === undefined)
    throw new AppError(
      'conflict',
      'till_transfer_session_closed',
      `The session of till ${till.code} is not open: its cashier opens it first.`,
    );
}

function assertCounted(count: CashCount, amount: Money): void {
  const counted = countTotal(count);
  if (!counted.eq(amount)) {
    throw new AppError(
      'unprocessable',
      'till_transfer_count_differs',
      `The count adds up to ${formatAmount(counted)}, not the ${formatAmount(amount)} of the transfer.`,
      [
        {
          field: 'count',
          message: `count adds up to ${formatAmount(counted)}, the transfer is ${formatAmount(amount)}`,
        },
      ],
    );
  }
}

/**
 * The giver's account has the cash to hand over: the vault or the till is locked, so two requests do not spend it
 * twice.
 */
async function assertGiverHolds(
  trx: Knex.Transaction,
  till: Till,
  kind: TillTransferKind,
  amount: Money,
): Promise<void> {
  const giver =
    kind === 'to_vault' ? till : await Till.query(trx).findOne({ branch_id: till.branchId, kind: 'vault' }).forUpdate();
  const balance = new Money(await tillBalance(trx, giver!.id));
  if (balance.lt(amount)) {
    throw new AppError(
      'conflict',
      'till_transfer_funds_short',
      `The ${kind === 'to_vault' ? 'till' : 'vault'} holds ${formatAmount(balance)} in its books, ` +
        `less than ${formatAmount(amount)}.`,
      [{ field: 'amount', message: "amount exceeds the giver's book balance" }],
    );
  }
}

const describe = (kind: TillTransferKind, till: Till, what: string) =>
  `${kind === 'to_till' ? 'Approvisionnement' : 'Dégagement'} caisse ${till.code} : ${what}`;

/** Requests a transfer as its giver: the vault keeper for an approvisionnement, the till's cashier for a dégagement. */
export async function requestTillTransfer(
  context: ActivityContext,
  actor: Actor,
  input: TillTransferInput,
): Promise<TillTransfer> {
  return inTransaction(context.knex, async (trx) => {
    const till = await Till.query(trx).findById(input.tillId).forUpdate();
    if (till === undefined) throw new NotFoundError('The till');
    if (till.kind !== 'till' || !till.isActive) {
      throw new AppError(
        'unprocessable',
        'till_transfer_till_refused',
        'Cash moves between the vault and an active till.',
        [{ field: 'till', message: 'till must be an active till, not the vault' }],
      );
    }
    assertSide(actor, till, input.kind === 'to_till' ? 'vault' : 'till');
    await assertSessionOpen(trx, till);
    if (input.count !== null) assertCounted(input.count, input.amount);
    await assertGiverHolds(trx, till, input.kind, input.amount);
    const businessDate = await businessDateOf(trx, till.enterpriseId, context.clock());
    const { giver } = transferSides(input.kind, till.accountCode);
    const entryId = await postJournalEntry(trx, {
      enterpriseId: till.enterpriseId,
      branchId: till.branchId,
      entryDate: businessDate,
      journal: 'CAI',
      createdBy: actor.userId,
      lines: cashMove(giver, transitAccount, input.amount),
      description: describe(input.kind, till, 'fonds remis'),
    });
    const transfer = await TillTransfer.query(trx).insertAndFetch({
      enterpriseId: till.enterpriseId,
      branchId: till.branchId,
      tillId: till.id,
      kind: input.kind,
      amount: formatAmount(input.amount),
      count: input.count === null ? null : fullCount(input.count),
      status: 'pending',
      businessDate,
      requestedBy: actor.userId,
      requestEntryId: entryId,
    });
    await recordAudit(trx, actor, {
      action: 'till_transfer.request',
      entityType: 'till_transfer',
      entityId: transfer.id,
      enterpriseId: till.enterpriseId,
      details: { till: till.code, kind: input.kind, amount: transfer.amount, entry: entryId },
    });
    return transfer;
  });
}

/** The pending transfer locked, with its till: what a confirmation or a cancellation starts from. */
async function pendingTransfer(
  trx: Knex.Transaction,
  transferId: string,
): Promise<{ transfer: TillTransfer; till: Till }> {
  const transfer = await TillTransfer.query(trx).findById(transferId).forUpdate();
  if (transfer === undefined) throw new NotFoundError('The till transfer');
  if (transfer.status !== 'pending')
    throw new AppError('conflict', 'till_transfer_not_pending', `The transfer is ${transfer.status} already.`);
  return { transfer, till: (await Till.query(trx).findById(transfer.tillId))! };
}

interface Decision {
  status: 'confirmed' | 'cancelled';
  from: string;
  to: string;
  receivedCount: CashCount | null;
  at: Date;
}

async function decide(
  trx: Knex.Transaction,
  actor: Actor,
  transfer: TillTransfer,
  till: Till,
  decision: Decision,
): Promise<TillTransfer> {
  const amount = new Money(transfer.amount);
  const entryId = await postJournalEntry(trx, {
    enterpriseId: transfer.enterpriseId,
    branchId: transfer.branchId,
    entryDate: await businessDateOf(trx, transfer.enterpriseId, decision.at),
    journal: 'CAI',
    createdBy: actor.userId,
    lines: cashMove(decision.from, decision.to, amount),
    description: describe(transfer.kind, till, decision.status === 'confirmed' ? 'fonds reçus' : 'annulé'),
  });
  const decided = await TillTransfer.query(trx).patchAndFetchById(transfer.id, {
    status: decision.status,
    receivedCount: decision.receivedCount === null ? null : fullCount(decision.receivedCount),
    decidedBy: actor.userId,
    decidedAt: decision.at,
    decisionEntryId: entryId,
  });
  await recordAudit(trx, actor, {
    action: decision.status === 'confirmed' ? 'till_transfer.confirm' : 'till_transfer.cancel',
    entityType: 'till_transfer',
    entityId: transfer.id,
    enterpriseId: transfer.enterpriseId,
    details: { till: till.code, kind: transfer.kind, amount: transfer.amount, entry: entryId },
  });
  return decided;
}

/**
 * Confirms a pending transfer as its receiver (the till's cashier for an approvisionnement, the vault keeper for a
 * dégagement), with the count of what they received. Never by its maker. A count that differs is refused: the
 * cash is counted again, or the maker cancels and hands over what is there (docs/domain.md §13.2).
 */
export async function confirmTillTransfer(
  context: ActivityContext,
  actor: Actor,
  transferId: string,
  count: CashCount,
): Promise<TillTransfer> {
  return inTransaction(context.knex, async (trx) => {
    const { transfer, till } = await pendingTransfer(trx, transferId);
    if (transfer.requestedBy === actor.userId)
      throw new AppError(
        'forbidden',
        'till_transfer_own',
        'Nobody confirms their own transfer: the other side counts it in.',
      );
    assertSide(actor, till, transfer.kind === 'to_till' ? 'till' : 'vault');
    await assertSessionOpen(trx, till);
    assertCounted(count, new Money(transfer.amount));
    const { receiver } = transferSides(transfer.kind, till.accountCode);
    return decide(trx, actor, transfer, till, {
      status: 'confirmed',
      from: transitAccount,
      to: receiver,
      receivedCount: count,
      at: context.clock(),
    });
  });
}

/**
 * Cancels a pending transfer, by its maker only: the cash goes back from 459 to the giver (a till's session open to
 * take it).
 */
export async function cancelTillTransfer(
  context: ActivityContext,
  actor: Actor,
  transferId: string,
): Promise<TillTransfer> {
  return inTransaction(context.knex, async (trx) => {
    const { transfer, till } = await pendingTransfer(trx, transferId);
    if (transfer.requestedBy !== actor.userId)
      throw new AppError('forbidden', 'till_transfer_not_maker', 'Only the maker of a transfer cancels it.');
    if (transfer.kind === 'to_vault') await assertSessionOpen(trx, till);
    const { giver } = transferSides(transfer.kind, till.accountCode);
    return decide(trx, actor, transfer, till, {
      status: 'cancelled',
      from: transitAccount,
      to: giver,
      receivedCount: null,
      at: context.clock(),
    });
  });
}
