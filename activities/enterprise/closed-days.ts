import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';

/**
 * Closed days (docs/domain.md §13.3): a day whose end of day moved the business date past it is closed, and no
 * operation may be dated on it or before it. The operations dated by their caller (manual entries, supplier
 * invoices and payments, treasury transfers, fixed assets) check it here; those dated by the business date are
 * past it already. The system's own closing work (a month end's accruals on the month's last day, a year's closing)
 * is dated on closed days on purpose and does not come through here.
 */
async function lastClosedDay(trx: Knex | Knex.Transaction, enterpriseId: string): Promise<IsoDate | null> {
  const row = await trx('end_of_day_runs')
    .where({ enterprise_id: enterpriseId })
    .whereNotNull('next_date')
    .max({ day: 'business_date' })
    .first();
  return (row?.day as IsoDate | null | undefined) ?? null;
}

/** Refuses a date on or before the enterprise's last closed day (409 `day_closed` naming `field`). */
export async function assertDayOpen(
  trx: Knex | Knex.Transaction,
  enterpriseId: string,
  date: IsoDate,
  field: string,
): Promise<void> {
  const closed = await lastClosedDay(trx, enterpriseId);
  if (closed !== null && date <= closed) {
    throw new AppError(
      'conflict',
      'day_closed',
      `${field} is in a closed day: the end of day has run up to ${closed}.`,
      [{ field, message: `${field} must be after the closed day ${closed}` }],
    );
  }
}
