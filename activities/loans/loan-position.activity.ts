import { loanPosition, type LoanPosition } from '../../domain/loans/position';
import { Money } from '../../domain/money';
import type { Loan } from '../../db/models/loan.model';
import { inTransaction } from '../../db/transaction';
import type { ActivityContext } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { readInstallments } from './installments';

/** A loan's position at the enterprise's business date, penalties accrued to that date (nothing is written). */
export async function positionOfLoan(context: ActivityContext, loan: Loan): Promise<LoanPosition & { asOf: string }> {
  return inTransaction(context.knex, async (trx) => {
    const asOf = await businessDateOf(trx, loan.enterpriseId, context.clock());
    return { ...loanPosition(await readInstallments(trx, loan.id), asOf, new Money(loan.penaltyRate)), asOf };
  });
}
