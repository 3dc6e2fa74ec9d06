import type { Knex } from 'knex';
import { lastDayOfUse } from '../../domain/accounting/depreciation';
import { disposalEntry } from '../../domain/accounting/fixed-assets';
import { AppError, NotFoundError, ValidationError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { FixedAsset } from '../../db/models/fixed-asset.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { assertNotAfterBusinessDate } from './supplier-books';
import { postJournalEntry, type EntryDraft } from '../events/post-entry';
import { bookDepreciation, depreciableAssets } from './fixed-asset-depreciation.activity';
import { assertAccountsFit } from './fixed-asset-categories.activity';
import { categoryAccounts, categoryById } from './fixed-assets.queries';

/**
 * The register's operations that post (docs/domain.md §12.4), each one transaction and each the executor of its
 * four-eyes request (activities/approvals/operations.ts): the acquisition, and the disposal. Payloads are JSON
 * (amounts as whole-franc text) since a request stores them.
 */

export interface AcquisitionPayload {
  enterpriseId: string;
  branchId: string;
  categoryId: string;
  label: string;
  supplier: string | null;
  acquisitionDate: string;
  cost: string;
  /** null: the category's period. */
  depreciationMonths: number | null;
  fundingAccount: string;
  idempotencyKey?: string | null;
}

/**
 * Records the asset in the register and posts its acquisition: debit its category's class 2 account, credit the funding
 * account, on the acquisition date.
 */
export async function acquireFixedAsset(
  context: DataContext,
  maker: Actor,
  payload: AcquisitionPayload,
): Promise<{ id: string }> {
  return inTransaction(context.knex, async (trx) => {
    const category = await categoryById(trx, payload.categoryId);
    if (category === undefined || category.enterprise_id !== payload.enterpriseId)
      throw new NotFoundError('The category');
    await assertNotAfterBusinessDate(
      trx,
      payload.enterpriseId,
      context.clock(),
      payload.acquisitionDate,
      'acquisition_date',
    );
    await assertAccountsFit(trx, payload.enterpriseId, [
      { field: 'funding_account', role: 'funding', code: payload.fundingAccount },
    ]);
    const cost = new Money(payload.cost);
    const entryId = await postJournalEntry(trx, {
      enterpriseId: payload.enterpriseId,
      branchId: payload.branchId,
      entryDate: payload.acquisitionDate,
      lines: [
        { account: category.asset_account_code, debit: cost, credit: new Money(0) },
        { account: payload.fundingAccount, debit: new Money(0), credit: cost },
      ],
      description: `Acquisition d'immobilisation : ${payload.label}`,
      createdBy: maker.userId,
    });
    const asset = await FixedAsset.query(trx).insert({
      enterpriseId: payload.enterpriseId,
      branchId: payload.branchId,
      categoryId: category.id,
      label: payload.label,
      supplier: payload.supplier,
      acquisitionDate: payload.acquisitionDate,
      cost: payload.cost,
      depreciationMonths: payload.depreciationMonths ?? category.depreciation_months,
      method: 'straight_line',
      fundingAccountCode: payload.fundingAccount,
      acquisitionEntryId: entryId,
      createdBy: maker.userId,
    });
    await recordAudit(trx, maker, {
      action: 'fixed_asset.acquisition',
      entityType: 'fixed_asset',
      entityId: asset.id,
      enterpriseId: payload.enterpriseId,
      details: { ...payload, entry: entryId },
    });
    return { id: asset.id };
  });
}

export interface DisposalPayload {
  assetId: string;
  date: string;
  proceeds: string;
  proceedsAccount: string;
  idempotencyKey?: string | null;
}

/**
 * Disposes of an asset: its depreciation booked to the day before the date (entries dated the disposal date), then
 * one entry removing it (cost and accumulated depreciation) with its net book value charged (676) and the price
 * received (775): the gain or loss is their difference. Refused for an asset disposed of already, and for a date
 * before depreciation already booked (a month end past it).
 */
export async function disposeFixedAsset(
  context: DataContext,
  maker: Actor,
  payload: DisposalPayload,
): Promise<{ id: string; gain: string }> {
  return inTransaction(context.knex, async (trx) => {
    const asset = await FixedAsset.query(trx).findById(payload.assetId).forUpdate().throwIfNotFound();
    if (asset.status !== 'active')
      throw new AppError('conflict', 'fixed_asset_disposed', `The asset ${asset.label} was disposed of already.`);
    const { enterpriseId } = asset;
    if (payload.date < asset.acquisitionDate)
      throw new ValidationError([
        { field: 'date', message: `date must not be before the acquisition date ${asset.acquisitionDate}` },
      ]);
    await assertNotAfterBusinessDate(trx, enterpriseId, context.clock(), payload.date, 'date');
    await assertDisposalAfterBooked(trx, payload.assetId, payload.date);
    const category = (await categoryById(trx, asset.categoryId))!;
    await assertAccountsFit(trx, enterpriseId, [
      { field: 'proceeds_account', role: 'proceeds', code: payload.proceedsAccount },
    ]);
    const post = (draft: Omit<EntryDraft, 'enterpriseId' | 'createdBy'>) =>
      postJournalEntry(trx, { ...draft, enterpriseId, createdBy: maker.userId });
    const rows = await depreciableAssets(trx, { assetId: payload.assetId }, lastDayOfUse(payload.date));
    await bookDepreciation(trx, post, rows, { through: lastDayOfUse(payload.date), entryDate: payload.date });
    const booked = await trx('fixed_asset_depreciations')
      .where({ asset_id: payload.assetId })
      .first(trx.raw('COALESCE(sum(amount), 0)::text AS total'));
    const disposal = {
      cost: new Money(asset.cost),
      accumulated: new Money(booked.total as string),
      proceeds: new Money(payload.proceeds),
      proceedsAccount: payload.proceedsAccount,
    };
    const entry = disposalEntry(disposal, categoryAccounts(category));
    const entryId = await post({
      branchId: asset.branchId,
      entryDate: payload.date,
      lines: entry.lines,
      description: `Cession d'immobilisation : ${asset.label}`,
    });
    await FixedAsset.query(trx).patchAndFetchById(asset.id, {
      status: 'disposed',
      disposalDate: payload.date,
      disposalProceeds: payload.proceeds,
      proceedsAccountCode: payload.proceedsAccount,
      disposalEntryId: entryId,
      disposedBy: maker.userId,
    });
    const details = {
      ...payload,
      net_book_value: formatAmount(entry.netBookValue),
      gain: formatAmount(entry.gain),
      entry: entryId,
    };
    await recordAudit(trx, maker, {
      action: 'fixed_asset.disposal',
      entityType: 'fixed_asset',
      entityId: payload.assetId,
      enterpriseId,
      details,
    });
    return { id: payload.assetId, gain: formatAmount(entry.gain) };
  });
}

/**
 * The asset is used until the day before its disposal: depreciation already booked beyond that day refuses the date.
 */
async function assertDisposalAfterBooked(trx: Knex.Transaction, assetId: string, date: string): Promise<void> {
  const last = await trx('fixed_asset_depreciations')
    .where({ asset_id: assetId })
    .first(trx.raw(`to_char(max(through_date), 'YYYY-MM-DD') AS through`));
  if (last?.through !== null && last?.through !== undefined && lastDayOfUse(date) < (last.through as string)) {
    const message =
      `Depreciation of the asset is booked through ${last.through as string}: ` +
      `it cannot be disposed of before the day after.`;
    throw new AppError('conflict', 'fixed_asset_depreciated_later', message, [{ field: 'date', message }]);
  }
}
