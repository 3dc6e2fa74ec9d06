import type { Knex } from 'knex';
import { fn } from 'objection';
import { holdsRole } from '../../domain/access';
import { countTotal, differenceLines, fullCount, type CashCount } from '../../domain/cash/till-counts';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { isUniqueViolation } from '../../db/errors';
import { Till } from '../../db/models/till.model';
import { TillSession } from '../../db/models/till-session.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { postJournalEntry } from '../events/post-entry';
import { tillBalance } from './tills.queries';

/**
 * A count compared with the till's book balance: the difference posted (none when they agree), the balance then equal
 * to the count.
 */
interface CountPosted {
  total: Money;
  bookBalance: Money;
  entryId: string | null;
}

async function postCount(
  trx: Knex.Transaction,
  actor: Actor,
  till: Till,
  businessDate: string,
  count: CashCount,
  moment: 'opening' | 'closing',
): Promise<CountPosted> {
  const total = countTotal(count);
  const bookBalance = new Money(await tillBalance(trx, till.id));
  const lines = differenceLines(till.accountCode, total.minus(bookBalance));
  if (lines.length === 0) return { total, bookBalance, entryId: null };
  const entryId = await postJournalEntry(trx, {
    enterpriseId: till.enterpriseId,
    branchId: till.branchId,
    entryDate: businessDate,
    lines,
    journal: 'CAI',
    createdBy: actor.userId,
    description:
      `${total.lt(bookBalance) ? 'Manquant' : 'Excédent'} de caisse ${till.code} à ` +
      `l'${moment === 'opening' ? 'ouverture' : 'arrêté'}`,
  });
  return { total, bookBalance, entryId };
}

/**
 * Opens the operator's session on the till assigned to them, for the business date, with the opening count
 * (docs/domain.md §13.1). A count that differs from the till's book balance posts the difference (4631 or 4632),
 * so the session starts from what is in the drawer. One open session per till.
 */
export async function openTillSession(context: ActivityContext, actor: Actor, count: CashCount): Promise<TillSession> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const till = await Till.query(trx)
        .findOne({ cashier_id: actor.userId, kind: 'till', is_active: true })
        .forUpdate();
      if (till === undefined)
        throw new AppError(
          'conflict',
          'till_not_assigned',
          'No till is assigned to you: the branch head assigns one first.',
        );
      const businessDate = await businessDateOf(trx, till.enterpriseId, context.clock());
      const opening = await postCount(trx, actor, till, businessDate, count, 'opening');
      const session = await TillSession.query(trx).insertAndFetch({
        enterpriseId: till.enterpriseId,
        branchId: till.branchId,
        tillId: till.id,
        cashierId: actor.userId,
        businessDate,
        status: 'open',
        openingCount: fullCount(count),
        openingTotal: formatAmount(opening.total),
        openingBookBalance: formatAmount(opening.bookBalance),
        openingEntryId: opening.entryId,
      });
      await recordAudit(trx, actor, {
        action: 'till_session.open',
        entityType: 'till_session',
        entityId: session.id,
        enterpriseId: till.enterpriseId,
        details: {
          till: till.code,
          business_date: businessDate,
          counted: session.openingTotal,
          book_balance: session.openingBookBalance,
          entry: opening.entryId,
        },
      });
      return session;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'till_sessions_one_open'))
      throw new AppError('conflict', 'till_session_open', 'A session is open on the till already: close it first.');
    throw error;
  }
}

/**
 * Closes a session with the closing count: the counted total against the till's book balance, a shortage posted
 * debit 4631 credit the till, an excess debit the till credit 4632. The session's row is locked first: the cash
 * operations in flight hold it shared (coopbank_cash_account), so the balance read is theirs too, and any later
 * one finds the session closed. A closed session is answered as it is: a second close changes nothing.
 */
export async function closeTillSession(
  context: ActivityContext,
  actor: Actor,
  sessionId: string,
  count: CashCount,
): Promise<TillSession> {
  return inTransaction(context.knex, async (trx) => {
    const session = await TillSession.query(trx).findById(sessionId).forUpdate();
    if (session === undefined) throw new NotFoundError('The till session');
    if (session.status === 'closed') return session;
    if (
      session.cashierId !== actor.userId &&
      !holdsRole(actor.grants, ['branch_head', 'direction', 'admin'], {
        enterpriseId: session.enterpriseId,
        branchId: session.branchId,
      })
    ) {
      throw new AppError(
        'forbidden',
        'till_session_not_yours',
        "Only the session's cashier or the branch head closes it.",
      );
    }
    const till = (await Till.query(trx).findById(session.tillId))!;
    const closing = await postCount(trx, actor, till, session.businessDate, count, 'closing');
    // closed_at is the database's time, as opened_at and the entries' created_at: the till journal compares them.
    const closed = await TillSession.query(trx).patchAndFetchById(session.id, {
      status: 'closed',
      closingCount: fullCount(count),
      closingTotal: formatAmount(closing.total),
      closingBookBalance: formatAmount(closing.bookBalance),
      closingEntryId: closing.entryId,
      closedAt: fn.now(),
      closedBy: actor.userId,
    });
    await recordAudit(trx, actor, {
      action: 'till_session.close',
      entityType: 'till_session',
      entityId: session.id,
      enterpriseId: session.enterpriseId,
      details: {
        till: till.code,
        counted: closed.closingTotal,
        book_balance: closed.closingBookBalance,
        entry: closing.entryId,
      },
    });
    return closed;
  });
}
