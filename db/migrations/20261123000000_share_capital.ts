import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Share capital (OHADA cooperative law): share types, subscriptions, payments (libérations) and withdrawals,
 * the member's founder flag, and the accounting rules of a withdrawal. Amounts are numeric(20,0) whole francs.
 *
 * A subscription keeps running totals (paid, withdrawn) updated in the transaction of each payment or
 * withdrawal; the payments and withdrawals themselves are the dated history the register at a date reads.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('client_profiles', (table) => {
    // Initiateurs named in the statutes (AUSCOOP Art. 18): only they may hold founder shares. Set by direction.
    table.boolean('founder').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('enterprise_configurations', (table) => {
    // How long before a withdrawal's refund falls due the board is reminded of it.
    table.integer('share_refund_reminder_days').notNullable().defaultTo(30);
    table.check('share_refund_reminder_days BETWEEN 0 AND 365', [], 'configuration_refund_reminder_days_range');
  });

  await knex.schema.createTable('share_types', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.string('code', 3).notNullable();
    table.string('name', 100).notNullable();
    table.decimal('nominal_value', 20, 0).notNullable();
    table.integer('min_shares').notNullable();
    table.integer('max_shares').notNullable();
    table.boolean('voting').notNullable();
    table.boolean('withdrawable').notNullable();
    table.integer('seniority_years').notNullable();
    // null: the enterprise's share_withdrawal_notice_days.
    table.integer('notice_days');
    table.boolean('partial_payment_allowed').notNullable();
    table.decimal('minimum_initial_payment_rate', 9, 6).notNullable();
    table.integer('payment_period_months').notNullable();
    table.boolean('is_active').notNullable().defaultTo(true);
    table.unique(['enterprise_id', 'code'], { indexName: 'share_types_code_unique' });
    table.check(`code IN ('001', '002', '003')`, [], 'share_types_code_known');
    table.check('nominal_value > 0', [], 'share_types_nominal_positive');
    table.check('min_shares >= 0 AND max_shares >= 1 AND min_shares <= max_shares', [], 'share_types_bounds');
    // Founder shares: not withdrawable before 5 years of seniority (the seed), never less.
    table.check(`seniority_years BETWEEN 0 AND 99 AND (code <> '001' OR seniority_years >= 5)`, [], 'share_types_seniority');
    table.check('notice_days IS NULL OR notice_days BETWEEN 0 AND 3650', [], 'share_types_notice_days_range');
    // AUSCOOP Art. 270 and 384: at least a quarter paid at subscription, the rest within three years.
    table.check('minimum_initial_payment_rate >= 0.25 AND minimum_initial_payment_rate <= 1 AND payment_period_months BETWEEN 1 AND 36', [], 'share_types_payment_terms');
  });
  await touchUpdatedAtOnUpdate(knex, 'share_types');

  await knex.schema.createTable('share_subscriptions', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('client_id').notNullable().references('client_profiles.id');
    table.uuid('share_type_id').notNullable().references('share_types.id');
    // ShareSequence: SUB-{year}-{000001}, gap-free per enterprise and year.
    table.string('number', 20).notNullable();
    table.integer('shares').notNullable();
    table.decimal('nominal_value', 20, 0).notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.date('subscribed_on').notNullable();
    table.date('payment_due_on').notNullable();
    table.decimal('paid_amount', 20, 0).notNullable().defaultTo(0);
    table.integer('withdrawn_shares').notNullable().defaultTo(0);
    table.decimal('withdrawn_paid', 20, 0).notNullable().defaultTo(0);
    table.decimal('withdrawn_unpaid', 20, 0).notNullable().defaultTo(0);
    table.uuid('subscribed_by').notNullable().references('users.id');
    table.string('idempotency_key', 200).notNullable();
    table.jsonb('request').notNullable();
    table.unique(['enterprise_id', 'number'], { indexName: 'share_subscriptions_number_unique' });
    table.unique(['enterprise_id', 'idempotency_key'], { indexName: 'share_subscriptions_idempotency_unique' });
    table.index(['client_id', 'share_type_id'], 'share_subscriptions_client_type');
    table.index(['enterprise_id', 'subscribed_on'], 'share_subscriptions_enterprise_date');
    table.check('shares > 0 AND nominal_value > 0 AND amount = shares * nominal_value', [], 'share_subscriptions_amount');
    table.check('payment_due_on >= subscribed_on', [], 'share_subscriptions_due_date');
    // What was paid and what was cancelled unpaid never exceed the subscription; a withdrawal cancels whole
    // shares, their value split between the paid and the unpaid part.
    table.check(
      `paid_amount >= 0 AND withdrawn_unpaid >= 0 AND withdrawn_paid >= 0 AND paid_amount + withdrawn_unpaid <= amount
       AND withdrawn_paid <= paid_amount AND withdrawn_shares BETWEEN 0 AND shares
       AND withdrawn_paid + withdrawn_unpaid = withdrawn_shares * nominal_value`,
      [],
      'share_subscriptions_totals',
    );
  });
  await touchUpdatedAtOnUpdate(knex, 'share_subscriptions');

  await knex.schema.createTable('share_payments', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('client_id').notNullable().references('client_profiles.id');
    table.uuid('subscription_id').notNullable().references('share_subscriptions.id');
    // ShareSequence: PAY-{year}-{000001}, gap-free per enterprise and year.
    table.string('number', 20).notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.string('channel', 10).notNullable();
    table.uuid('account_id').references('comptes_clients.id');
    table.string('reference', 100).notNullable().defaultTo('');
    table.date('business_date').notNullable();
    table.decimal('unpaid_after', 20, 0).notNullable();
    table.uuid('event_id').notNullable().references('business_event_logs.id');
    table.string('idempotency_key', 200).notNullable();
    table.jsonb('request').notNullable();
    table.uuid('recorded_by').notNullable().references('users.id');
    table.unique(['enterprise_id', 'number'], { indexName: 'share_payments_number_unique' });
    table.unique(['enterprise_id', 'idempotency_key'], { indexName: 'share_payments_idempotency_unique' });
    table.index(['subscription_id', 'business_date'], 'share_payments_subscription');
    table.index(['enterprise_id', 'business_date'], 'share_payments_enterprise_date');
    table.check('amount > 0 AND unpaid_after >= 0', [], 'share_payments_amounts');
    table.check(`channel IN ('cash', 'account')`, [], 'share_payments_channel_known');
    table.check(`(channel = 'account') = (account_id IS NOT NULL)`, [], 'share_payments_account_for_channel');
  });
  await knex.raw(`CREATE TRIGGER share_payments_append_only BEFORE UPDATE OR DELETE ON share_payments FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()`);

  await knex.schema.createTable('share_withdrawals', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('client_id').notNullable().references('client_profiles.id');
    table.uuid('subscription_id').notNullable().references('share_subscriptions.id');
    // ShareSequence: WDR-{year}-{000001}, gap-free per enterprise and year.
    table.string('number', 20).notNullable();
    table.integer('shares').notNullable();
    // The member leaves the cooperative: no minimum holding, and the refund is net of the outstanding principal.
    table.boolean('leaving').notNullable();
    table.text('reason').notNullable().defaultTo('');
    table.string('status', 10).notNullable().defaultTo('notice');
    table.text('status_reason').notNullable().defaultTo('');
    table.date('requested_on').notNullable();
    table.integer('notice_days').notNullable();
    table.date('effective_on_planned').notNullable();
    table.uuid('requested_by').notNullable().references('users.id');
    table.timestamp('cancelled_at', { useTz: true });
    table.uuid('cancelled_by').references('users.id');
    // Set when the withdrawal takes effect: the value cancelled, split as the subscription was paid.
    table.date('effective_on');
    table.decimal('cancelled_paid', 20, 0);
    table.decimal('cancelled_unpaid', 20, 0);
    table.date('refund_due_on');
    table.timestamp('refund_extended_at', { useTz: true });
    table.uuid('refund_extended_by').references('users.id');
    table.text('refund_extension_reason').notNullable().defaultTo('');
    table.timestamp('refund_reminded_at', { useTz: true });
    table.timestamp('refund_overdue_at', { useTz: true });
    // Set by the refund: what the member's debts took (loan repayments) and what was paid out.
    table.date('refunded_on');
    table.string('refund_channel', 10);
    table.uuid('refund_account_id').references('comptes_clients.id');
    table.decimal('offset_amount', 20, 0);
    table.decimal('net_refund', 20, 0);
    table.uuid('refunded_by').references('users.id');
    table.string('refund_idempotency_key', 200);
    table.jsonb('refund_request');
    table.string('workflow_id', 100).notNullable();
    table.unique(['enterprise_id', 'number'], { indexName: 'share_withdrawals_number_unique' });
    table.index(['subscription_id'], 'share_withdrawals_subscription');
    table.index(['enterprise_id', 'status'], 'share_withdrawals_enterprise_status');
    table.index(['client_id'], 'share_withdrawals_client');
    table.check('shares > 0 AND notice_days >= 0 AND effective_on_planned >= requested_on', [], 'share_withdrawals_request');
    table.check(`status IN ('notice', 'cancelled', 'effective', 'refunded', 'failed')`, [], 'share_withdrawals_status_known');
    table.check(`(status = 'cancelled') = (cancelled_at IS NOT NULL)`, [], 'share_withdrawals_cancelled_date');
    table.check(
      `(status IN ('effective', 'refunded')) = (effective_on IS NOT NULL AND cancelled_paid IS NOT NULL AND cancelled_unpaid IS NOT NULL AND refund_due_on IS NOT NULL)`,
      [],
      'share_withdrawals_effective_fields',
    );
    table.check(`(status = 'refunded') = (refunded_on IS NOT NULL AND offset_amount IS NOT NULL AND net_refund IS NOT NULL)`, [], 'share_withdrawals_refund_fields');
    table.check('offset_amount IS NULL OR (offset_amount >= 0 AND net_refund >= 0 AND offset_amount + net_refund = cancelled_paid)', [], 'share_withdrawals_refund_split');
    table.check(`refund_channel IS NULL OR refund_channel IN ('cash', 'account')`, [], 'share_withdrawals_refund_channel_known');
  });
  await touchUpdatedAtOnUpdate(knex, 'share_withdrawals');

  // A refund net of the member's debts repays their loans from the refund payable (account 4411).
  await knex.raw('ALTER TABLE loan_repayments DROP CONSTRAINT loan_repayments_channel_known');
  await knex.raw('ALTER TABLE loan_repayments DROP CONSTRAINT loan_repayments_account_for_channel');
  await knex.raw('ALTER TABLE loan_repayments ALTER COLUMN channel TYPE varchar(20)');
  await knex.raw(`ALTER TABLE loan_repayments ADD CONSTRAINT loan_repayments_channel_known CHECK (channel IN ('cash', 'account', 'share_refund'))`);
  await knex.raw(`ALTER TABLE loan_repayments ADD CONSTRAINT loan_repayments_account_for_channel CHECK ((channel = 'account') = (account_id IS NOT NULL))`);

  await addWithdrawalRules(knex);
}

/**
 * The rules of a withdrawal, for enterprises created before this migration (later ones get them from the
 * fixture): the shares cancelled at the effective date become a debt to the member (4411), which the refund
 * pays. The refund rule of version 1 paid straight from the capital account: a version 2 pays from 4411.
 * Legs are written out here, not read from the fixture, so this migration means the same forever.
 */
async function addWithdrawalRules(knex: Knex): Promise<void> {
  const role = (name: string) => ({ role: name });
  const rules = [
    { kind: 'share_cancellation', legs: [{ debit: role('shares_paid'), credit: role('members_capital') }] },
    { kind: 'share_unpaid_cancellation', legs: [{ debit: role('shares_unpaid'), credit: role('members_capital') }] },
  ];
  const reason = 'shares module: rules of a withdrawal';
  for (const rule of rules) {
    await knex.raw(
      `INSERT INTO accounting_rule_configs (enterprise_id, kind, version, legs, is_active, reason) SELECT id, ?, 1, ?::jsonb, true, ? FROM enterprises`,
      [rule.kind, JSON.stringify(rule.legs), reason],
    );
  }
  await knex.raw(
    `INSERT INTO accounting_rule_configs (enterprise_id, kind, version, legs, is_active, reason)
     SELECT enterprise_id, kind, version + 1, ?::jsonb, is_active, ?
       FROM (SELECT DISTINCT ON (enterprise_id) * FROM accounting_rule_configs WHERE kind = 'share_refund' ORDER BY enterprise_id, version DESC) current
      WHERE current.legs = ?::jsonb`,
    [JSON.stringify([{ debit: role('members_capital'), credit: role('cash') }]), reason, JSON.stringify([{ debit: role('shares_paid'), credit: role('cash') }])],
  );
}

export async function down(knex: Knex): Promise<void> {
  // Rules are append-only; undoing this migration is the one legitimate removal.
  await knex.raw('ALTER TABLE accounting_rule_configs DISABLE TRIGGER accounting_rule_configs_append_only');
  await knex.raw(`DELETE FROM accounting_rule_configs WHERE reason = 'shares module: rules of a withdrawal'`);
  await knex.raw('ALTER TABLE accounting_rule_configs ENABLE TRIGGER accounting_rule_configs_append_only');
  await knex.raw('ALTER TABLE loan_repayments DROP CONSTRAINT loan_repayments_channel_known');
  await knex.raw('ALTER TABLE loan_repayments DROP CONSTRAINT loan_repayments_account_for_channel');
  await knex.raw(`ALTER TABLE loan_repayments ADD CONSTRAINT loan_repayments_channel_known CHECK (channel IN ('cash', 'account'))`);
  await knex.raw(`ALTER TABLE loan_repayments ADD CONSTRAINT loan_repayments_account_for_channel CHECK ((channel = 'account') = (account_id IS NOT NULL))`);
  for (const name of ['share_withdrawals', 'share_payments', 'share_subscriptions', 'share_types']) {
    await knex.schema.dropTable(name);
  }
  await knex.schema.alterTable('enterprise_configurations', (table) => table.dropColumn('share_refund_reminder_days'));
  await knex.schema.alterTable('client_profiles', (table) => table.dropColumn('founder'));
}
