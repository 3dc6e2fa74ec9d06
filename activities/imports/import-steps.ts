import type Decimal from 'decimal.js';
import type { Knex } from 'knex';
import type { DataContext } from '../context';

/**
 * One kind's part of the go-live import (docs/domain.md §15, docs/architecture.md §11). The import workflow runs
 * each step of every kind in the order of `importKinds`, in a transaction of its own: the steps write only in the
 * caller's transaction and keep no state between calls, so a step run again after a crash finds what it left.
 */

/** An import as its steps see it. */
export interface ImportScope {
  importId: string;
  enterpriseId: string;
  /** YYYY-MM-DD: the day whose closing balances the files give. */
  cutOverDate: string;
}

/**
 * What a kind's detail adds up to on one account of the chart in one branch: what the tie-out compares with the trial
 * balance.
 */
export interface DetailTotal {
  branchCode: string;
  accountCode: string;
  /** Debit positive, credit negative, as the trial balance's debit minus credit. */
  balance: Decimal;
  /** What the detail is, for the report: "member deposits, product EPA". */
  what: string;
}

export interface ImportKindSteps {
  /**
   * Writes the kind's problems to `import_problems`: each row alone, then across rows and against the enterprise's
   * data.
   */
  validate(trx: Knex.Transaction, scope: ImportScope): Promise<void>;
  /** The kind's detail totals per branch and account, read from validated rows. */
  detailTotals?(trx: Knex.Transaction, scope: ImportScope): Promise<DetailTotal[]>;
  /**
   * Creates what the rows numbered after `afterRow` describe, at most `limit` rows, and answers the last row number
   * it applied (null when none was left). Posts nothing: the opening entries carry the general ledger's side. The
   * caller records the batch in the same transaction, so a batch is applied once.
   */
  applyBatch?(
    trx: Knex.Transaction,
    context: DataContext,
    scope: ImportScope,
    afterRow: number,
    limit: number,
  ): Promise<number | null>;
  /** Marks what the import created as cancelled; the caller reverses the opening entries. */
  cancel?(trx: Knex.Transaction, scope: ImportScope): Promise<void>;
}
