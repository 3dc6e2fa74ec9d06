import { Model, snakeCaseMappers } from 'objection';
import { NotFoundError } from '../../domain/errors';

/**
 * Base of every Objection model: UUID primary key (made by PostgreSQL), creation and update times (kept by
 * the database), camelCase properties over snake_case columns.
 *
 * No model is bound to a global knex: every query names its transaction or knex explicitly
 * (`Model.query(trx)`), so no statement can silently run outside the transaction its caller opened.
 */
export abstract class BaseModel extends Model {
  id!: string;
  createdAt!: Date;
  updatedAt!: Date;

  /**
   * What `throwIfNotFound()` throws: the product's one not-found error (404 `not_found`), never Objection's
   * own, which the API would not recognize (a 500).
   */
  static override createNotFoundError(): Error {
    return new NotFoundError(`The ${this.name}`);
  }

  static override get columnNameMappers() {
    return snakeCaseMappers();
  }

  /** Timestamps belong to the database: never written from the model. */
  override $formatDatabaseJson(json: Record<string, unknown>): Record<string, unknown> {
    const row = super.$formatDatabaseJson(json);
    delete row.created_at;
    delete row.updated_at;
    return row;
  }
}
