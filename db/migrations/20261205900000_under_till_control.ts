import type { Knex } from 'knex';
import { applySqlSource } from '../migration-helpers';

/**
 * "Under till control" gets one definition, coopbank_under_till_control: the cash operations' account
 * (coopbank_cash_account) and the branch's day close (the vault to count) read it, instead of each its own query.
 */
export async function up(knex: Knex): Promise<void> {
  await applySqlSource(knex, 'functions/coopbank_under_till_control');
  await applySqlSource(knex, 'functions/coopbank_cash_account');
}

export async function down(): Promise<void> {
  // coopbank_cash_account keeps calling it (its file's text is the newest one): the tills' own down drops both.
}
