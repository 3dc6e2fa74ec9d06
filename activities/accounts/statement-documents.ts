import type { Knex } from 'knex';
import { NotFoundError } from '../../domain/errors';
import type { ReportColumn, ReportDocument } from '../../domain/accounts/report-document';
import type {
  BalanceSheetAnswer,
  IncomeStatementAnswer,
  SerializedStatementLine,
  TrialBalanceAnswer,
} from './financial-statements';

/**
 * The financial statements as ReportDocuments (docs/architecture.md §10), built from the very answers the JSON
 * routes send, so a CSV or a workbook shows the same figures to the franc. Titles and columns in French: the
 * reports go to the board and to COBAC as such.
 */

/** What every report's header block names: whose, which branch, and when it was made. */
export type ReportHeading = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt'>;

/** The heading of a report whose figures may be provisional: the earlier years it carries by computation named. */
export const provisionalHeading = (
  heading: ReportHeading,
  answer: { open_exercices: readonly string[] },
): ReportHeading & Pick<ReportDocument, 'openExercices'> =>
  answer.open_exercices.length === 0 ? heading : { ...heading, openExercices: answer.open_exercices };

/** The enterprise's code and name and the branch's code, read for a report's header block. */
export async function reportHeading(
  knex: Knex,
  scope: { enterpriseId: string; branch: string | null },
  now: Date,
): Promise<ReportHeading> {
  const enterprise = await knex('enterprises').where({ id: scope.enterpriseId }).first('code', 'name');
  if (enterprise === undefined) throw new NotFoundError('The enterprise');
  const branch =
    scope.branch === null
      ? undefined
      : ((await knex('branches').where({ id: scope.branch }).first('code'))?.code as string | undefined);
  return {
    enterprise: { code: enterprise.code, name: enterprise.name },
    ...(branch === undefined ? {} : { branch }),
    generatedAt: now.toISOString(),
  };
}

const text = (key: string, title: string): ReportColumn => ({ key, title, kind: 'text' });
const money = (key: string, title: string): ReportColumn => ({ key, title, kind: 'money' });
const integer = (key: string, title: string): ReportColumn => ({ key, title, kind: 'integer' });

/** A statement's side: its lines, then its total, the period and the prior period side by side. */
function sideSheet(
  name: string,
  lines: readonly SerializedStatementLine[],
  total: { label: string; amount: string; prior: string },
  dates: Record<'current' | 'prior', string>,
) {
  return {
    name,
    columns: [
      text('code', 'Poste'),
      text('label', 'Libellé'),
      money('amount', dates.current),
      money('prior_amount', dates.prior),
    ],
    rows: [
      ...lines.map((line) => ({
        code: line.code,
        label: line.label,
        amount: line.amount,
        prior_amount: line.prior_amount,
      })),
      { code: '', label: total.label, amount: total.amount, prior_amount: total.prior },
    ],
  };
}

/** The accounts behind each line, for the auditor who traces a line to the ledger. */
function accountsSheet(sides: readonly { side: string; lines: readonly SerializedStatementLine[] }[]) {
  return {
    name: 'Détail par compte',
    columns: [text('side', 'Rubrique'), text('line', 'Poste'), text('account', 'Compte'), money('amount', 'Montant')],
    rows: sides.flatMap(({ side, lines }) =>
      lines.flatMap((line) => line.accounts.map(({ account, amount }) => ({ side, line: line.code, account, amount }))),
    ),
  };
}

export function balanceSheetDocument(sheet: BalanceSheetAnswer, heading: ReportHeading): ReportDocument {
  const dates = { current: `Au ${sheet.date}`, prior: `Au ${sheet.prior_date}` };
  return {
    title: 'Bilan',
    ...provisionalHeading(heading, sheet),
    asOf: sheet.date,
    sheets: [
      sideSheet(
        'Actif',
        sheet.assets,
        { label: 'Total actif', amount: sheet.totals.assets, prior: sheet.totals.prior_assets },
        dates,
      ),
      sideSheet(
        'Passif',
        sheet.liabilities,
        { label: 'Total passif', amount: sheet.totals.liabilities, prior: sheet.totals.prior_liabilities },
        dates,
      ),
      accountsSheet([
        { side: 'Actif', lines: sheet.assets },
        { side: 'Passif', lines: sheet.liabilities },
      ]),
    ],
  };
}

export function incomeStatementDocument(statement: IncomeStatementAnswer, heading: ReportHeading): ReportDocument {
  const dates = {
    current: `${statement.date_from} – ${statement.date_to}`,
    prior: `${statement.prior_date_from} – ${statement.prior_date_to}`,
  };
  const { totals } = statement;
  return {
    title: 'Compte de résultat',
    ...heading,
    period: { from: statement.date_from, to: statement.date_to },
    sheets: [
      sideSheet(
        'Charges',
        statement.expenses,
        { label: 'Total charges', amount: totals.expenses, prior: totals.prior_expenses },
        dates,
      ),
      sideSheet(
        'Produits',
        statement.income,
        { label: 'Total produits', amount: totals.income, prior: totals.prior_income },
        dates,
      ),
      {
        name: 'Résultat',
        columns: [text('label', 'Libellé'), money('amount', dates.current), money('prior_amount', dates.prior)],
        rows: [
          { label: 'Total produits', amount: totals.income, prior_amount: totals.prior_income },
          { label: 'Total charges', amount: totals.expenses, prior_amount: totals.prior_expenses },
          { label: 'Résultat (produits − charges)', amount: totals.result, prior_amount: totals.prior_result },
        ],
      },
      accountsSheet([
        { side: 'Charges', lines: statement.expenses },
        { side: 'Produits', lines: statement.income },
      ]),
    ],
  };
}

const totalsColumns = [money('debit', 'Débit'), money('credit', 'Crédit'), money('balance', 'Solde (débit − crédit)')];

const sixColumnTitles = [
  money('opening_debit', 'Solde d’ouverture débit'),
  money('opening_credit', 'Solde d’ouverture crédit'),
  money('movement_debit', 'Mouvements débit'),
  money('movement_credit', 'Mouvements crédit'),
  money('closing_debit', 'Solde de clôture débit'),
  money('closing_credit', 'Solde de clôture crédit'),
];

export function trialBalanceDocument(trial: TrialBalanceAnswer, heading: ReportHeading): ReportDocument {
  const { debit: _debit, credit: _credit, balanced: _balanced, ...totals } = trial.totals;
  return {
    title: 'Balance générale',
    ...provisionalHeading(heading, trial),
    ...(trial.date === null ? {} : { asOf: trial.date }),
    ...(trial.date === null || trial.date_from === null ? {} : { period: { from: trial.date_from, to: trial.date } }),
    sheets: [
      {
        name: 'Balance',
        columns: [text('code', 'Compte'), text('label', 'Libellé'), integer('class', 'Classe'), ...sixColumnTitles],
        rows: [
          ...trial.accounts.map((account) => ({ ...account, class: String(account.class) })),
          { code: '', label: 'Total', class: null, ...totals },
        ],
      },
      {
        name: 'Regroupements',
        columns: [
          text('code', 'Compte'),
          text('label', 'Libellé'),
          integer('class', 'Classe'),
          integer('level', 'Niveau'),
          ...totalsColumns,
        ],
        rows: trial.groups.map((group) => ({ ...group, class: String(group.class), level: String(group.level) })),
      },
    ],
  };
}
