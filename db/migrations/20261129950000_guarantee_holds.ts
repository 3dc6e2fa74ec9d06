import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';
import { up as originalMoveCash } from './20261125000000_cash_movement_function';

/**
 * Guarantees that can lower a provision (docs/domain.md §4, issue 25):
 * - a pledged deposit is a hold on a real member account (`compte_client_id`): while it holds (not refused, not
 *   released, its loan or application still running: the `guarantee_holds` view), the account's debits cannot take
 *   its balance below its product's minimum plus the held amounts; coopbank_move_cash checks it under the account's
 *   lock, as the other debits do (activities/members/member-account-leg.ts). Its cash cover is what of it the
 *   account's balance still backs, holds taken in their order of creation.
 * - a covering guarantee is `pending` until a second person confirms it (`loan_guarantee_confirmations`, one row per
 *   request to add or end one: the maker, the checker, the decision). Only one `in_force` counts for provisioning.
 *   Guarantees recorded before stay in force; a pledged deposit recorded before has no account and so covers nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('loan_guarantees', (table) => {
    table.uuid('compte_client_id').references('comptes_clients.id');
    table.string('status', 10).notNullable().defaultTo('in_force');
    table.check(`status IN ('pending', 'in_force', 'refused')`, [], 'loan_guarantees_status_known');
    table.check(`compte_client_id IS NULL OR kind = 'pledged_deposit'`, [], 'loan_guarantees_account_pledged_only');
  });
  await knex.raw('CREATE INDEX loan_guarantees_account ON loan_guarantees (compte_client_id) WHERE compte_client_id IS NOT NULL');

  await knex.schema.createTable('loan_guarantee_confirmations', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('guarantee_id').notNullable().references('loan_guarantees.id');
    table.string('change', 5).notNullable();
    table.date('end_date');
    table.uuid('requested_by').notNullable().references('users.id');
    table.string('decision', 10).notNullable().defaultTo('pending');
    table.uuid('decided_by').references('users.id');
    table.timestamp('decided_at', { useTz: true });
    table.text('reason').notNullable().defaultTo('');
    table.index(['guarantee_id'], 'loan_guarantee_confirmations_guarantee');
    table.check(`change IN ('add', 'end')`, [], 'loan_guarantee_confirmations_change_known');
    table.check(`(change = 'end') = (end_date IS NOT NULL)`, [], 'loan_guarantee_confirmations_end_dated');
    table.check(`decision IN ('pending', 'confirmed', 'refused')`, [], 'loan_guarantee_confirmations_decision_known');
    table.check(`(decision = 'pending') = (decided_by IS NULL)`, [], 'loan_guarantee_confirmations_decided');
    // Four eyes: whoever asked never decides.
    table.check('decided_by IS NULL OR decided_by <> requested_by', [], 'loan_guarantee_confirmations_two_people');
  });
  await knex.raw(`CREATE UNIQUE INDEX loan_guarantee_confirmations_one_pending ON loan_guarantee_confirmations (guarantee_id) WHERE decision = 'pending'`);
  await touchUpdatedAtOnUpdate(knex, 'loan_guarantee_confirmations');

  // The holds on accounts in force: one rule, read by the debits (coopbank_held_amount) and the provisioning run.
  await knex.raw(`
    CREATE VIEW guarantee_holds AS
      SELECT g.id AS guarantee_id, g.loan_id, g.compte_client_id, g.status, g.start_date, g.value, g.created_at
        FROM loan_guarantees g
        LEFT JOIN loans l ON l.id = g.loan_id
        LEFT JOIN loan_applications a ON a.id = g.application_id
       WHERE g.compte_client_id IS NOT NULL AND g.status <> 'refused' AND g.end_date IS NULL
         AND CASE WHEN g.loan_id IS NOT NULL THEN l.status IN ('awaiting_disbursement', 'active') ELSE a.status = 'in_review' END`);
  await knex.raw(`
    CREATE FUNCTION coopbank_held_amount(account uuid) RETURNS numeric LANGUAGE sql STABLE AS $$
      SELECT coalesce(sum(h.value), 0) FROM guarantee_holds h WHERE h.compte_client_id = account
    $$`);

  // coopbank_move_cash as 20261125000000_cash_movement_function made it, the held amounts added to the minimum balance.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION coopbank_move_cash(
      wanted_account uuid, direction text, amount numeric, channel text, reference text, operation_key text, replayable boolean,
      actor uuid, at_time timestamptz, moves_money boolean, default_accounts jsonb
    ) RETURNS TABLE (
      account uuid, id uuid, kind text, subject_id uuid, amount_moved numeric, payload jsonb, business_date date, created_at timestamptz,
      journal_entry uuid, replayed boolean
    ) LANGUAGE plpgsql AS $$
    #variable_conflict use_variable
    DECLARE
      locked record;
      balance_after numeric;
      held numeric := 0;
      request jsonb;
      event_payload jsonb;
      product_accounts jsonb;
      recorded record;
    BEGIN
      SELECT * INTO locked FROM coopbank_lock_member_account(wanted_account, CASE WHEN replayable THEN operation_key END) a;
      IF NOT FOUND THEN
        RETURN;
      END IF;
      IF locked.earlier_event IS NOT NULL THEN
        RETURN QUERY
          SELECT locked.id, ev.id, ev.kind::text, ev.subject_id, ev.amount, ev.payload, ev.business_date, ev.created_at, je.id, true
            FROM business_event_logs ev
            LEFT JOIN journal_entries je ON je.event_id = ev.id AND je.reverses_entry_id IS NULL
           WHERE ev.id = locked.earlier_event AND ev.kind IN ('deposit', 'withdrawal');
        IF FOUND THEN
          RETURN;
        END IF;
      END IF;
      IF locked.status <> 'open' THEN
        PERFORM coopbank_refuse('CB409', 'account_' || locked.status, format('The account is %s: no %s is possible.', locked.status, direction));
      END IF;
      balance_after := CASE WHEN direction = 'deposit' THEN locked.balance + amount ELSE locked.balance - amount END;
      IF direction = 'withdrawal' AND NOT locked.withdrawals_allowed THEN
        PERFORM coopbank_refuse('CB409', 'withdrawals_not_allowed', format('Product %s does not allow withdrawals.', locked.product_code));
      END IF;
      IF direction = 'withdrawal' THEN
        -- Read under the account's lock: a hold added concurrently locks the account too (loan-guarantees.activity.ts).
        held := coopbank_held_amount(locked.id);
      END IF;
      IF direction = 'withdrawal' AND balance_after < locked.minimum_balance + held THEN
        PERFORM coopbank_refuse('CB409', 'insufficient_funds', format('The available balance is %s XAF.', greatest(locked.balance - locked.minimum_balance - held, 0))
                                                               || CASE WHEN held > 0 THEN format(' %s XAF are held as pledged deposits.', held) ELSE '' END);
      END IF;

      request := jsonb_build_object('direction', direction, 'account', locked.id, 'amount', amount::text, 'channel', channel, 'reference', reference);
      event_payload := jsonb_build_object('request', request, 'balance_after', balance_after::text, 'account_number', locked.number);
      product_accounts := jsonb_build_object('member_deposits', locked.deposit_account_code);
      SELECT * INTO recorded FROM coopbank_record_event(
        locked.enterprise_id, locked.branch_id, direction, amount, event_payload, product_accounts, locked.id, actor, operation_key,
        encode(sha256(convert_to(jsonb_build_object('enterprise', locked.enterprise_id, 'branch', locked.branch_id, 'kind', direction, 'amount', amount::text, 'payload', event_payload,
                                                    'product_accounts', product_accounts)::text, 'UTF8')), 'hex'),
        at_time, moves_money, default_accounts,
        direction || ' ' || locked.number || CASE WHEN reference = '' THEN '' ELSE ' (' || reference || ')' END) r;
      IF NOT recorded.replayed THEN
        UPDATE comptes_clients a SET balance = balance_after WHERE a.id = locked.id;
      END IF;
      RETURN QUERY SELECT locked.id, recorded.event_id, direction, locked.id, amount, event_payload, recorded.business_date, recorded.recorded_at,
                          recorded.entry_id, recorded.replayed;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION coopbank_move_cash(uuid, text, numeric, text, text, text, boolean, uuid, timestamptz, boolean, jsonb)');
  await originalMoveCash(knex);
  await knex.raw('DROP FUNCTION coopbank_held_amount(uuid)');
  await knex.raw('DROP VIEW guarantee_holds');
  await knex.schema.dropTable('loan_guarantee_confirmations');
  await knex.schema.alterTable('loan_guarantees', (table) => {
    table.dropChecks(['loan_guarantees_status_known', 'loan_guarantees_account_pledged_only']);
    table.dropColumn('status');
    table.dropColumn('compte_client_id');
  });
}
