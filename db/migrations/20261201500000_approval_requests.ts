import type { Knex } from 'knex';

/**
 * Four eyes (docs/architecture.md §7): a sensitive operation is first a request, held with its payload until a
 * second authorised user approves it (then it runs) or rejects it, or it expires. `approval_policies` holds an
 * enterprise's departures from the default policy (domain/approvals/policy.ts), one row per operation named.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('approval_requests', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').references('branches.id');
    table.string('operation', 64).notNullable();
    table.jsonb('payload').notNullable();
    table.string('summary', 300).notNullable();
    table.specificType('approver_roles', 'text[]').notNullable();
    table.uuid('maker_id').notNullable().references('users.id');
    table.string('status', 16).notNullable().defaultTo('pending');
    table.uuid('decided_by').references('users.id');
    table.string('reason', 500);
    table.jsonb('outcome');
    table.string('workflow_id', 200).notNullable();
    table.string('request_id', 100);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.timestamp('decided_at', { useTz: true });
    table.check(`status IN ('pending', 'approved', 'rejected', 'expired', 'failed')`, [], 'approval_requests_status');
    // The second pair of eyes is another person's: the database refuses the maker as the decider too.
    table.check('decided_by IS NULL OR decided_by <> maker_id', [], 'approval_requests_four_eyes');
    table.check(`(status = 'pending') = (decided_at IS NULL)`, [], 'approval_requests_decided');
    table.index(['enterprise_id', 'status', 'created_at']);
  });
  await knex.schema.createTable('approval_policies', (table) => {
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.string('operation', 64).notNullable();
    table.boolean('four_eyes').notNullable();
    table.specificType('approver_roles', 'text[]').notNullable();
    table.decimal('threshold', 20, 0);
    table.integer('lifetime_days').notNullable();
    table.uuid('updated_by').references('users.id');
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['enterprise_id', 'operation']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('approval_policies');
  await knex.schema.dropTable('approval_requests');
}
