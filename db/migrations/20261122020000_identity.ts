import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/** Users, their roles per enterprise or branch, refresh-token families, login throttling, audit trail. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (table) => {
    addStandardColumns(knex, table);
    table.string('username', 150).notNullable().unique(); // stored lower-case: one account per name
    table.string('password_hash', 300).notNullable();
    table.string('full_name', 200).notNullable();
    table.string('email', 254).notNullable().defaultTo('');
    table.boolean('is_active').notNullable().defaultTo(true);
    table.timestamp('last_login_at', { useTz: true });
  });
  await touchUpdatedAtOnUpdate(knex, 'users');

  // A grant is one role at one scope: a branch, a whole enterprise (branch null) or, for administrators of
  // the platform, every enterprise (enterprise null). Revocation keeps the row for the audit trail.
  await knex.schema.createTable('role_grants', (table) => {
    addStandardColumns(knex, table);
    table.uuid('user_id').notNullable().references('users.id');
    table.string('role', 30).notNullable();
    table.uuid('enterprise_id').references('enterprises.id');
    table.uuid('branch_id').references('branches.id');
    table.uuid('granted_by').references('users.id');
    table.timestamp('revoked_at', { useTz: true });
    table.uuid('revoked_by').references('users.id');
    table.check(`role IN ('cashier', 'branch_head', 'credit_committee', 'direction', 'admin')`, [], 'role_grants_role_known');
    table.check(`branch_id IS NULL OR enterprise_id IS NOT NULL`, [], 'role_grants_branch_in_enterprise');
    table.check(`enterprise_id IS NOT NULL OR role = 'admin'`, [], 'role_grants_platform_scope_admin_only');
  });
  await knex.raw(`
    CREATE UNIQUE INDEX role_grants_active_unique ON role_grants (user_id, role, enterprise_id, branch_id)
    NULLS NOT DISTINCT WHERE revoked_at IS NULL`);
  await knex.raw('CREATE INDEX role_grants_user ON role_grants (user_id) WHERE revoked_at IS NULL');
  await touchUpdatedAtOnUpdate(knex, 'role_grants');

  // A family is one sign-in: every refresh token rotated from it, and the access tokens issued with them.
  await knex.schema.createTable('token_families', (table) => {
    addStandardColumns(knex, table);
    table.uuid('user_id').notNullable().references('users.id');
    table.timestamp('revoked_at', { useTz: true });
    table.string('revoked_reason', 20);
  });
  await touchUpdatedAtOnUpdate(knex, 'token_families');

  await knex.schema.createTable('refresh_tokens', (table) => {
    table.uuid('jti').primary();
    table.uuid('family_id').notNullable().references('token_families.id');
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('used_at', { useTz: true }); // rotated: presenting it again is a reuse
  });
  await knex.raw('CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id)');

  await knex.schema.createTable('login_failures', (table) => {
    table.bigIncrements('id');
    table.string('throttle_key', 200).notNullable(); // 'user:<name>' or 'address:<ip>'
    table.timestamp('failed_at', { useTz: true }).notNullable();
    table.index(['throttle_key', 'failed_at'], 'login_failures_key_time');
  });

  await knex.schema.createTable('audit_events', (table) => {
    table.bigIncrements('id');
    table.timestamp('occurred_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('actor_id').references('users.id');
    table.string('action', 60).notNullable();
    table.string('entity_type', 60).notNullable();
    table.uuid('entity_id');
    table.uuid('enterprise_id').references('enterprises.id');
    table.jsonb('details').notNullable().defaultTo('{}');
    table.string('request_id', 64);
    table.index(['enterprise_id', 'occurred_at'], 'audit_events_enterprise_time');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['audit_events', 'login_failures', 'refresh_tokens', 'token_families', 'role_grants', 'users']) {
    await knex.schema.dropTable(table);
  }
}
