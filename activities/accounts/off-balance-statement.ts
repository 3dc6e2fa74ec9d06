import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { offBalanceStatement } from '../../domain/accounts/off-balance';
import type { ReportDocument } from '../../domain/accounts/report-document';
import { formatAmount, Money } from '../../domain/money';
import { provisionalOf, type StatementScope } from './financial-statements';
import { provisionalHeading, type ReportHeading } from './statement-documents';
import { statementScopeAt, totalsInScope } from './year-balances';

/**
 * The off-balance statement at a date (docs/domain.md §12.2): the class 9 balances, carried across the years as the
 * balance sheet's are, in the sections of domain/accounts/off-balance.ts; per branch or consolidated. Read here for the
 * API (JSON, CSV, XLSX) and the reporting pack.
 */
export async function offBalanceStatementAt(knex: Knex, scope: StatementScope, date: IsoDate) {
  const at = await statementScopeAt(knex, scope.enterpriseId, date, scope.branches);
  const rows: { code: string; label: string; balance: string }[] = await totalsInScope(knex, at.scope)
    .where('c.class', 9)
    .groupBy('c.code', 'c.label')
    .select('c.code', 'c.label', knex.raw('(sum(s.debit) - sum(s.credit))::text AS balance'));
  const labels = new Map(rows.map((row) => [row.code, row.label]));
  const statement = offBalanceStatement(rows.map((row) => ({ account: row.code, balance: new Money(row.balance) })));
  return {
    enterprise: scope.enterpriseId,
    branch: scope.branch,
    date,
    ...provisionalOf(at.openExercices),
    sections: statement.sections.map((section) => ({
      key: section.key,
      label: section.label,
      total: formatAmount(section.total),
      accounts: section.accounts.map((row) => ({
        account: row.account,
        label: labels.get(row.account) ?? row.account,
        amount: formatAmount(row.amount),
      })),
    })),
    balanced: statement.balanced,
  };
}

export type OffBalanceAnswer = Awaited<ReturnType<typeof offBalanceStatementAt>>;

/** The statement as a report: one sheet, each section's accounts then its total. */
export function offBalanceDocument(answer: OffBalanceAnswer, heading: ReportHeading): ReportDocument {
  return {
    title: 'État des engagements hors bilan',
    ...provisionalHeading(heading, answer),
    asOf: answer.date,
    sheets: [
      {
        name: 'Hors bilan',
        columns: [
          { key: 'section', title: 'Rubrique', kind: 'text' },
          { key: 'account', title: 'Compte', kind: 'text' },
          { key: 'label', title: 'Libellé', kind: 'text' },
          { key: 'amount', title: `Au ${answer.date}`, kind: 'money' },
        ],
        rows: answer.sections.flatMap((section) => [
          ...section.accounts.map((row) => ({
            section: section.label,
            account: row.account,
            label: row.label,
            amount: row.amount,
          })),
          { section: section.label, account: '', label: 'Total', amount: section.total },
        ]),
      },
    ],
  };
}
