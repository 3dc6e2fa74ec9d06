import { formatAmount, Money } from '../money';
import { byCodePoint } from '../text-order';
import type { ReportColumn, ReportDocument } from './report-document';

/**
 * The general ledger (grand livre, docs/architecture.md §10): per account, the opening balance (as the trial balance
 * counts it: à-nouveaux, earlier years carried by computation, what was posted before the period), each movement
 * of the period with the running balance, then the account's totals and closing balance. The rows are made as the
 * movements come, account by account, so a year of lines is never held whole.
 */

/**
 * An account of the ledger: with an opening balance (debit minus credit, zero when none) or movements in the period.
 */
export interface LedgerAccount {
  id: string;
  code: string;
  label: string;
  opening: Money;
}

/** A line of the period on an account, in date and posting order. */
export interface LedgerMovement {
  entry_date: string;
  journal: string;
  /** The entry's number as printed (CAI-2026-000042). */
  number: string;
  branch: string | null;
  description: string;
  debit: string;
  credit: string;
}

export type LedgerRow =
  | { kind: 'opening'; code: string; label: string; balance: Money }
  | ({ kind: 'movement'; code: string; label: string; balance: Money } & LedgerMovement)
  | { kind: 'closing'; code: string; label: string; debit: Money; credit: Money; balance: Money };

/** Accounts in code order, digit by digit. */
const byCode = (a: { code: string }, b: { code: string }) => byCodePoint(a.code, b.code);

/**
 * The ledger's rows: for each account in code order, its opening, its movements with the balance after each, its
 * closing. The closing is the opening plus the movements streamed, so the file always adds up, even when postings
 * arrive while it is read; `movementsOf` gives an account's lines as they are read.
 */
export async function* generalLedgerRows(
  accounts: readonly LedgerAccount[],
  movementsOf: (account: LedgerAccount) => AsyncIterable<LedgerMovement>,
): AsyncGenerator<LedgerRow> {
  for (const account of [...accounts].sort(byCode)) {
    const { code, label } = account;
    let [balance, debit, credit] = [account.opening, new Money(0), new Money(0)];
    yield { kind: 'opening', code, label, balance };
    for await (const movement of movementsOf(account)) {
      // Each amount read once: parsing a Decimal costs as much as adding one.
      const [movementDebit, movementCredit] = [new Money(movement.debit), new Money(movement.credit)];
      debit = debit.plus(movementDebit);
      credit = credit.plus(movementCredit);
      balance = balance.plus(movementDebit).minus(movementCredit);
      yield { kind: 'movement', code, label, ...movement, balance };
    }
    yield { kind: 'closing', code, label, debit, credit, balance };
  }
}

/** A balance as the two columns accountants read: debit when positive, credit when negative. */
export const balanceSides = (balance: Money) => ({
  debit: formatAmount(Money.max(balance, 0)),
  credit: formatAmount(Money.max(balance.negated(), 0)),
});

/** A movement as printed: its date under `date`, with the running balance. */
type Movement = Omit<LedgerMovement, 'entry_date'> & { date: string; balance: string };

/** A movement as the JSON and the files show it. */
function movementOf(row: Extract<LedgerRow, { kind: 'movement' }>): Movement {
  const { entry_date: date, journal, number, branch, description, debit, credit } = row;
  return { date, journal, number, branch, description, debit, credit, balance: formatAmount(row.balance) };
}

interface LedgerAccountAnswer {
  account: string;
  label: string;
  opening_balance: string;
  movements: Movement[];
  movement_debit: string;
  movement_credit: string;
  closing_balance: string;
}

/** The JSON of the ledger: the accounts with their movements, and the six columns' totals over them. */
export async function generalLedgerAnswer(rows: AsyncIterable<LedgerRow>) {
  const accounts: LedgerAccountAnswer[] = [];
  const sums = {
    opening: [new Money(0), new Money(0)],
    movement: [new Money(0), new Money(0)],
    closing: [new Money(0), new Money(0)],
  };
  const addSides = (key: keyof typeof sums, balance: Money) => {
    sums[key] = [sums[key][0]!.plus(Money.max(balance, 0)), sums[key][1]!.plus(Money.max(balance.negated(), 0))];
  };
  for await (const row of rows) {
    if (row.kind === 'opening') {
      accounts.push({
        account: row.code,
        label: row.label,
        opening_balance: formatAmount(row.balance),
        movements: [],
        movement_debit: '0',
        movement_credit: '0',
        closing_balance: '0',
      });
      addSides('opening', row.balance);
    } else if (row.kind === 'movement') {
      accounts.at(-1)!.movements.push(movementOf(row));
    } else {
      Object.assign(accounts.at(-1)!, {
        movement_debit: formatAmount(row.debit),
        movement_credit: formatAmount(row.credit),
        closing_balance: formatAmount(row.balance),
      });
      sums.movement = [sums.movement[0]!.plus(row.debit), sums.movement[1]!.plus(row.credit)];
      addSides('closing', row.balance);
    }
  }
  const totals = Object.fromEntries(
    Object.entries(sums).flatMap(([key, [debit, credit]]) => [
      [`${key}_debit`, formatAmount(debit!)],
      [`${key}_credit`, formatAmount(credit!)],
    ]),
  );
  return { accounts, totals };
}

const column = (key: string, title: string, kind: ReportColumn['kind']): ReportColumn => ({ key, title, kind });

const ledgerColumns = [
  column('account', 'Compte', 'text'),
  column('label', 'Libellé du compte', 'text'),
  column('date', 'Date', 'date'),
  column('journal', 'Journal', 'text'),
  column('number', 'N° de pièce', 'text'),
  column('branch', 'Agence', 'text'),
  column('description', 'Libellé', 'text'),
  column('debit', 'Débit', 'money'),
  column('credit', 'Crédit', 'money'),
  column('balance', 'Solde (débit − crédit)', 'money'),
];

/** A row of the file: the opening and closing as lines of their own, so each account reads top to bottom. */
function fileRow(row: LedgerRow): Record<string, string | null> {
  const account = { account: row.code, label: row.label };
  if (row.kind === 'opening')
    return {
      ...account,
      description: 'Solde à nouveau',
      ...balanceSides(row.balance),
      balance: formatAmount(row.balance),
    };
  if (row.kind === 'closing')
    return {
      ...account,
      description: 'Total du compte et solde de clôture',
      debit: formatAmount(row.debit),
      credit: formatAmount(row.credit),
      balance: formatAmount(row.balance),
    };
  // Written out: V8 builds `{ ...account, ...movement }` about a hundred times slower, for each of a year's lines.
  const { code, label, entry_date: date, journal, number, branch, description, debit, credit } = row;
  return {
    account: code,
    label,
    date,
    journal,
    number,
    branch,
    description,
    debit,
    credit,
    balance: formatAmount(row.balance),
  };
}

/**
 * The ledger as a ReportDocument whose rows are read as they are written: `rows` makes a new pass over the
 * ledger each time it is called (the reporting pack writes one document three times: its figures, CSV, XLSX).
 */
export function generalLedgerDocument(
  heading: Omit<ReportDocument, 'title' | 'sheets'>,
  rows: () => AsyncIterable<LedgerRow>,
): ReportDocument {
  return {
    ...heading,
    title: 'Grand livre',
    sheets: [
      {
        name: 'Grand livre',
        columns: ledgerColumns,
        rows: {
          async *[Symbol.asyncIterator]() {
            let [debit, credit] = [new Money(0), new Money(0)];
            for await (const row of rows()) {
              if (row.kind === 'closing') [debit, credit] = [debit.plus(row.debit), credit.plus(row.credit)];
              yield fileRow(row);
            }
            yield {
              account: '',
              description: 'Total général des mouvements',
              debit: formatAmount(debit),
              credit: formatAmount(credit),
            };
          },
        },
      },
    ],
  };
}
