import type { Knex } from 'knex';
import { addMonthsClamped, parseIsoDate, type IsoDate } from '../../domain/calendar';
import { ladderPeriods, type LadderPeriod, type PortfolioLoan } from '../../domain/loans/portfolio-reports';
import { ValidationError } from '../../domain/errors';
import { Money } from '../../domain/money';
import { businessDateOf } from '../enterprise/configuration.activity';
import { unpaidAt } from './positions-at';

export interface PortfolioScope {
  enterpriseId: string;
  branches: 'all' | readonly string[];
  asOf: IsoDate;
  product?: string;
  /** The loan officer at the date. */
  officer?: string;
  /** The officers' portfolio: loans disbursed or repaid over it count too, although out of the portfolio at its end. */
  period?: { from: IsoDate; to: IsoDate };
}

interface Row {
  loan: string;
  number: string;
  branch_id: string;
  branch_code: string;
  branch_name: string;
  product_id: string;
  product_code: string;
  product_name: string;
  officer_id: string;
  officer_username: string;
  officer_name: string;
  in_portfolio: boolean;
  days_past_due: number;
  outstanding: string;
  arrears: string;
  past_due: string;
  disbursed: string;
  collected: string;
  [period: string]: unknown;
}

/** Unpaid at the date, as the provisioning run reads it on its own date: not paid off, or paid off after the date. */
const lateAt = `((i.paid_on IS NULL AND (i.principal_paid < i.principal_due OR i.interest_paid < i.interest_due))
  OR i.paid_on > :asOf)`;

/**
 * The officer of a loan at the date: the one the latest reassignment by then handed it to; before any, the first
 * reassignment's previous officer; without any, the loan's.
 */
const officerAt = `COALESCE(
  (SELECT a.to_officer_id FROM loan_officer_assignments a WHERE a.loan_id = l.id AND a.assigned_on <= :asOf
    ORDER BY a.assigned_on DESC, a.created_at DESC LIMIT 1),
  (SELECT a.from_officer_id FROM loan_officer_assignments a WHERE a.loan_id = l.id ORDER BY a.assigned_on, a.created_at
    LIMIT 1),
  l.loan_officer_id)`;

/** Each ladder period's principal: due after the previous bound, up to its own. */
function ladderColumns(asOf: IsoDate): { sql: string; bindings: Record<string, string> } {
  const bindings: Record<string, string> = {};
  let lower = ':asOf';
  const columns = ladderPeriods.map(({ key, months }) => {
    const upper = months === null ? null : `:${key}`;
    if (months !== null) bindings[key] = addMonthsClamped(parseIsoDate(asOf), months);
    const column = `CAST(COALESCE(sum(${unpaidAt('principal')})
      FILTER (WHERE i.due_date > ${lower}${upper === null ? '' : ` AND i.due_date <= ${upper}`}),
        0) AS text) AS ${key}`;
    if (upper !== null) lower = upper;
    return column;
  });
  return { sql: columns.join(',\n'), bindings };
}

/**
 * Every loan of the scope at `asOf` with what the portfolio reports read (domain/loans/portfolio-reports.ts): its
 * branch, product and officer at the date, whether it is in the portfolio then (as loansAt: disbursed by then, not
 * written off, not closed), its days past due, outstanding principal and arrears, and its unpaid principal by
 * period falling due. Past dates read the installments as they stood then (unpaidAt's approximation aside).
 */
export async function portfolioLoans(knex: Knex, scope: PortfolioScope): Promise<PortfolioLoan[]> {
  const ladder = ladderColumns(scope.asOf);
  const inPortfolio = `(l.disbursed_on <= :asOf AND NOT COALESCE(l.written_off_on <= :asOf, false)
    AND NOT COALESCE(l.closed_on <= :asOf, false))`;
  const inPeriod =
    scope.period === undefined
      ? 'false'
      : `(l.disbursed_on BETWEEN :from AND :to
        OR EXISTS (SELECT 1 FROM loan_repayments r WHERE r.loan_id = l.id AND r.business_date BETWEEN :from AND :to))`;
  const filters = [
    scope.branches === 'all' ? null : 'l.branch_id = ANY(:branches::uuid[])',
    scope.product === undefined ? null : 'l.product_id = :product',
    scope.officer === undefined ? null : 'o.officer_id = :officer',
  ].filter((filter) => filter !== null);
  // What the loan's repayments brought in during the period.
  const collectedInPeriod =
    '(SELECT COALESCE(sum(r.amount), 0) FROM loan_repayments r ' +
    'WHERE r.loan_id = l.id AND r.business_date BETWEEN :from AND :to)';
  const result = await knex.raw<{ rows: Row[] }>(
    `SELECT l.id AS loan, l.number, l.branch_id, b.code AS branch_code, b.name AS branch_name, l.product_id,
      p.code AS product_code, p.name AS product_name,
            o.officer_id, u.username AS officer_username, u.full_name AS officer_name, ${inPortfolio} AS in_portfolio,
            COALESCE(:asOf::date - f.oldest_due, 0) AS days_past_due, f.*,
            CAST(CASE WHEN ${scope.period === undefined ? 'false' : 'l.disbursed_on BETWEEN :from AND :to'}
              THEN l.principal ELSE 0 END AS text) AS disbursed,
            CAST(${scope.period === undefined ? '0' : collectedInPeriod} AS text) AS collected
       FROM loans l
       JOIN branches b ON b.id = l.branch_id
       JOIN loan_products p ON p.id = l.product_id
       CROSS JOIN LATERAL (SELECT ${officerAt} AS officer_id) o
       JOIN users u ON u.id = o.officer_id
       CROSS JOIN LATERAL (
         SELECT min(i.due_date) FILTER (WHERE i.due_date < :asOf AND ${lateAt}) AS oldest_due,
                CAST(COALESCE(sum(${unpaidAt('principal')}), 0) AS text) AS outstanding,
                CAST(COALESCE(sum(${unpaidAt('principal')} + ${unpaidAt('interest')})
                  FILTER (WHERE i.due_date <= :asOf), 0) AS text) AS arrears,
                CAST(COALESCE(sum(${unpaidAt('principal')}) FILTER (WHERE i.due_date <= :asOf), 0) AS text) AS past_due,
                ${ladder.sql}
           FROM loan_installments i WHERE i.loan_id = l.id) f
      WHERE l.enterprise_id = :enterpriseId AND l.disbursed_on IS NOT NULL
        AND (${inPortfolio} OR ${inPeriod})${filters.map((filter) => ` AND ${filter}`).join('')}
      ORDER BY l.number`,
    {
      enterpriseId: scope.enterpriseId,
      asOf: scope.asOf,
      ...ladder.bindings,
      ...scope.period,
      ...(scope.branches === 'all' ? {} : { branches: [...scope.branches] }),
      ...(scope.product === undefined ? {} : { product: scope.product }),
      ...(scope.officer === undefined ? {} : { officer: scope.officer }),
    },
  );
  return result.rows.map(portfolioLoanOf);
}

function portfolioLoanOf(row: Row): PortfolioLoan {
  return {
    loan: row.loan,
    loanNumber: row.number,
    branch: { id: row.branch_id, code: row.branch_code, name: row.branch_name },
    product: { id: row.product_id, code: row.product_code, name: row.product_name },
    officer: { id: row.officer_id, code: row.officer_username, name: row.officer_name },
    inPortfolio: row.in_portfolio,
    daysPastDue: Number(row.days_past_due),
    outstanding: new Money(row.outstanding),
    arrears: new Money(row.arrears),
    principalPastDue: new Money(row.past_due),
    principalFallingDue: Object.fromEntries(
      ladderPeriods.map(({ key }) => [key, new Money(row[key] as string)]),
    ) as Record<LadderPeriod, Money>,
    disbursed: new Money(row.disbursed),
    collected: new Money(row.collected),
  };
}

/**
 * A report's date is the business date or earlier: the figures of a later date are not known yet. A period's
 * start is on or before its end. 400 naming the field.
 */
export async function assertReportDate(
  knex: Knex,
  now: Date,
  enterpriseId: string,
  date: IsoDate,
  field: string,
  from?: IsoDate,
): Promise<void> {
  if (from !== undefined && from > date)
    throw new ValidationError([{ field, message: `${field} must be on or after from (${from})` }]);
  const businessDate = await businessDateOf(knex, enterpriseId, now);
  if (date > businessDate)
    throw new ValidationError([
      { field, message: `${field} must be on or before the business date (${businessDate})` },
    ]);
}
