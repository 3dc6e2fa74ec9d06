import type { Session } from './api-client';
import type { Cooperative } from './cooperative';
import type { Member } from './members';

export interface LoanApplication {
  id: string;
  number: string;
  workflow_id: string;
  status: string;
  current_step: string | null;
  loan: { id: string; number: string } | null;
}

interface LoanPosition {
  overdue_principal: string;
  overdue_interest: string;
  penalties: string;
}

interface LoanTerms {
  product: 'shortTermCredit' | 'equipmentCredit';
  amount: string;
  termPeriods: number;
  purpose: string;
}

/** The four steps of the circuit and who decides each at the head office (docs/domain.md §3). */
const circuit = [
  ['cashier', 'cashier'],
  ['branch_head', 'branchHead'],
  ['credit_committee', 'committee'],
  ['direction', 'direction'],
] as const;

type ApprovalStep = (typeof circuit)[number][0];

/**
 * Loans at the head office's counter and through its approval circuit. Applications are submitted by the
 * teller, who therefore decides none of their steps; each decision is an Update of the application's
 * `loanApproval` workflow; the teller pays granted loans out, the final approver never does.
 */
export class LoanDesk {
  constructor(private readonly cooperative: Cooperative) {}

  private get teller(): Session {
    return this.cooperative.staff.teller.session;
  }

  submit(member: Member, terms: LoanTerms): Promise<LoanApplication> {
    return this.teller.post(`submit the loan application of ${member.name}`, '/api/v1/loans/applications/', {
      client: member.id,
      product: this.cooperative.products[terms.product],
      amount: terms.amount,
      term_periods: terms.termPeriods,
      purpose: terms.purpose,
    });
  }

  decide(
    application: LoanApplication,
    step: ApprovalStep,
    decision: 'approve' | 'reject' | 'send_back',
    comment = '',
  ): Promise<LoanApplication> {
    const decider = circuit.find(([name]) => name === step)![1];
    return this.cooperative.staff[decider].session.post(
      `${decision} ${application.number} at the ${step} step`,
      `/api/v1/loans/applications/${application.id}/decisions/`,
      { decision, comment, step },
    );
  }

  /** Approvals from the current step up to `through` included; answers the application as it then stands. */
  async approveThrough(application: LoanApplication, through: ApprovalStep): Promise<LoanApplication> {
    const from = circuit.findIndex(([name]) => name === application.current_step);
    if (from < 0) throw new Error(`${application.number} is ${application.status}: no step is waiting for a decision`);
    let current = application;
    for (const [step] of circuit.slice(from)) {
      current = await this.decide(current, step, 'approve', 'Avis favorable');
      if (step === through) break;
    }
    return current;
  }

  /** The whole circuit: the loan it creates, awaiting disbursement. */
  async grant(member: Member, terms: LoanTerms): Promise<string> {
    return loanOf(await this.approveThrough(await this.submit(member, terms), 'direction'));
  }

  /** Paid out to the member's current account, the fees withheld. */
  async disburse(loanId: string, member: Member): Promise<void> {
    await this.teller.post(`disburse the loan of ${member.name}`, `/api/v1/loans/loans/${loanId}/disbursement/`, {
      channel: 'account',
      account: member.accountId,
    });
  }

  async dueDates(loanId: string): Promise<string[]> {
    const schedule = await this.teller.get<{ installments: { due_date: string }[] }>(
      'read the repayment schedule',
      `/api/v1/loans/loans/${loanId}/schedule/`,
    );
    return schedule.installments.map((installment) => installment.due_date);
  }

  /** The member pays what is due at the business date (installments due, their interest and penalties). */
  async collectDue(loanId: string, member: Member, date: string, channel: 'cash' | 'account'): Promise<void> {
    const loan = await this.teller.get<{ position: LoanPosition }>(
      `read the position of the loan of ${member.name}`,
      `/api/v1/loans/loans/${loanId}/`,
    );
    const due = [loan.position.overdue_principal, loan.position.overdue_interest, loan.position.penalties].reduce(
      (total, part) => total + BigInt(part),
      0n,
    );
    if (due === 0n) return;
    await this.teller.post(
      `record the repayment of ${member.name}`,
      '/api/v1/loans/repayments/',
      {
        loan: loanId,
        amount: due.toString(),
        channel,
        ...(channel === 'account' ? { account: member.accountId } : {}),
        date,
        reference: `Échéance du ${date}`,
      },
      `${this.cooperative.code}:repayment:${member.key}:${date}`,
    );
  }
}

/** The loan an approved application created. */
export function loanOf(application: LoanApplication): string {
  if (application.loan === null) throw new Error(`${application.number} ended ${application.status} without a loan`);
  return application.loan.id;
}
