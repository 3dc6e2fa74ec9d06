import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { Loan } from '../../db/models/loan.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor, DataContext } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { defaultRoleAccounts } from '../events/default-rules';
import { recordBusinessEvent } from '../events/record-business-event';
import { postLoanEngagements } from './off-balance';

/**
 * Flags or clears litigation (a litigious loan is doubtful at the next provisioning run, and so are its borrower's).
 */
export async function setLitigious(
  context: ActivityContext,
  actor: Actor,
  loanId: string,
  litigious: boolean,
  reason: string,
): Promise<Loan> {
  return inTransaction(context.knex, async (trx) => {
    const loan = await Loan.query(trx).findById(loanId).forUpdate().throwIfNotFound();
    if (loan.status !== 'active')
      throw new AppError('conflict', 'loan_not_active', `Loan ${loan.number} is ${loan.status}.`);
    const updated = await Loan.query(trx).patchAndFetchById(loanId, { litigious });
    await recordAudit(trx, actor, {
      action: litigious ? 'loan.litigious' : 'loan.litigation_ended',
      entityType: 'loan',
      entityId: loanId,
      enterpriseId: loan.enterpriseId,
      details: { reason },
    });
    return updated;
  });
}

/**
 * Writes off a doubtful loan (docs/domain.md §4): the part its provisions cover is a loss on 6921, the rest on
 * 6922, both crediting the doubtful account the loan's principal sits on (by its cover); its provisions are
 * reversed from the account they sit on, in the same transaction. The loan
 * leaves the portfolio and stays readable. A related party's loan needs the recorded approval (R-2017/07 Art. 26).
 */
export async function writeOffLoan(
  context: DataContext,
  actor: Actor,
  input: { loanId: string; approval: string },
): Promise<Loan> {
  return inTransaction(context.knex, async (trx) => {
    const loan = await Loan.query(trx).findById(input.loanId).forUpdate().throwIfNotFound();
    await assertWriteOffAllowed(trx, loan, input.approval);
    const now = context.clock();
    const outstanding = new Money(loan.outstandingPrincipal);
    const covered = await postWriteOff(trx, now, actor, loan);
    const writtenOffOn = await businessDateOf(trx, loan.enterpriseId, now);
    const updated = await Loan.query(trx).patchAndFetchById(loan.id, {
      status: 'written_off',
      writtenOffOn,
      writtenOffAmount: formatAmount(outstanding),
      writtenOffBy: actor.userId,
      writeOffApproval: input.approval.trim(),
      outstandingPrincipal: '0',
      provisionAmount: '0',
      provisionAccountCode: null,
    });
    // Its guarantees and suspended interest leave the off-balance books with it (docs/domain.md §12.2).
    await postLoanEngagements(trx, { loanId: loan.id, date: writtenOffOn, createdBy: actor.userId });
    await recordAudit(trx, actor, {
      action: 'loan.write_off',
      entityType: 'loan',
      entityId: loan.id,
      enterpriseId: loan.enterpriseId,
      details: { amount: formatAmount(outstanding), covered: formatAmount(covered), approval: input.approval },
    });
    return updated;
  });
}

/** Only a doubtful loan is written off, and a related party's needs the recorded approval. */
async function assertWriteOffAllowed(trx: Knex.Transaction, loan: Loan, approval: string): Promise<void> {
  if (loan.status !== 'active' || loan.classification !== 'doubtful') {
    throw new AppError(
      'conflict',
      'loan_not_doubtful',
      `Loan ${loan.number} is ${loan.status === 'active' ? loan.classification : loan.status}: ` +
        `only a doubtful loan is written off.`,
    );
  }
  const client = await trx('client_profiles').where({ id: loan.clientId }).first('related_party');
  if (client.related_party === true && approval.trim() === '') {
    throw new AppError(
      'unprocessable',
      'write_off_approval_required',
      'The borrower is a related party: the write-off needs the recorded approval (COBAC R-2017/07 Art. 26).',
      [{ field: 'approval', message: 'approval is required for a related party' }],
    );
  }
}

/**
 * Posts the write-off's losses (covered and uncovered by provisions) and the reversal of its provisions; returns the
 * covered part.
 */
async function postWriteOff(trx: Knex.Transaction, now: Date, actor: Actor, loan: Loan): Promise<Money> {
  const outstanding = new Money(loan.outstandingPrincipal);
  const provisions = new Money(loan.provisionAmount);
  const covered = Money.min(provisions, outstanding);
  const event = {
    enterpriseId: loan.enterpriseId,
    branchId: loan.branchId,
    subjectId: loan.id,
    actorId: actor.userId,
    payload: { loan: loan.id, loan_number: loan.number },
  };
  const losses: [Money, string, string][] = [
    [covered, defaultRoleAccounts.write_off_loss, 'covered'],
    [outstanding.minus(covered), '6922', 'uncovered'],
  ];
  for (const [amount, lossAccount, part] of losses) {
    if (amount.isZero()) continue;
    await recordBusinessEvent(trx, now, {
      ...event,
      kind: 'write_off',
      amount,
      idempotencyKey: `write-off:${loan.id}:${part}`,
      productAccounts: { write_off_loss: lossAccount, doubtful_receivables: loan.doubtfulAccountCode! },
      description: `write-off ${loan.number} (${part} by provisions)`,
    });
  }
  if (provisions.gt(0)) {
    await recordBusinessEvent(trx, now, {
      ...event,
      kind: 'provision_reversal',
      amount: provisions,
      productAccounts: { provisions: loan.provisionAccountCode! },
      idempotencyKey: `write-off:${loan.id}:provisions`,
      description: `provisions of ${loan.number} reversed at write-off`,
    });
  }
  return covered;
}
