import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/** The cooperative (root aggregate), its branches, accounting years, parameters and profile. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS btree_gist'); // uuid equality inside the years' exclusion constraint

  await knex.schema.createTable('enterprises', (table) => {
    addStandardColumns(knex, table);
    table.string('code', 20).notNullable().unique();
    table.string('name', 200).notNullable();
    table.string('legal_form', 100).notNullable();
    table.string('country', 2).notNullable();
    table.string('status', 20).notNullable().defaultTo('active');
    table.check(`status IN ('active', 'suspended')`, [], 'enterprises_status_known');
  });
  await touchUpdatedAtOnUpdate(knex, 'enterprises');

  await knex.schema.createTable('branches', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.string('code', 20).notNullable();
    table.string('name', 200).notNullable();
    table.boolean('is_head_office').notNullable().defaultTo(false);
    table.string('address', 300).notNullable().defaultTo('');
    table.string('city', 100).notNullable().defaultTo('');
    table.string('phone', 30).notNullable().defaultTo('');
    table.string('status', 20).notNullable().defaultTo('active');
    table.unique(['enterprise_id', 'code'], { indexName: 'branches_code_unique' });
    table.check(`status IN ('active', 'closed')`, [], 'branches_status_known');
  });
  await knex.raw('CREATE UNIQUE INDEX branches_one_head_office ON branches (enterprise_id) WHERE is_head_office');
  await touchUpdatedAtOnUpdate(knex, 'branches');

  await knex.schema.createTable('exercices_comptables', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.string('code', 20).notNullable();
    table.date('start_date').notNullable();
    table.date('end_date').notNullable();
    table.string('status', 20).notNullable().defaultTo('open');
    table.timestamp('closed_at', { useTz: true });
    table.uuid('closed_by');
    table.unique(['enterprise_id', 'code'], { indexName: 'exercices_code_unique' });
    table.check('end_date >= start_date', [], 'exercices_dates_ordered');
    table.check(`status IN ('open', 'closed')`, [], 'exercices_status_known');
  });
  await knex.raw(`
    ALTER TABLE exercices_comptables ADD CONSTRAINT exercices_no_overlap
    EXCLUDE USING gist (enterprise_id WITH =, daterange(start_date, end_date, '[]') WITH &&)`);
  await touchUpdatedAtOnUpdate(knex, 'exercices_comptables');

  // One row per enterprise: the parameters later modules read. Typed columns, so the database refuses
  // nonsense too; defaults are the policy defaults of docs/domain.md.
  await knex.schema.createTable('enterprise_configurations', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().unique().references('enterprises.id');
    table.string('time_zone', 64).notNullable();
    table.string('currency', 3).notNullable().defaultTo('XAF');
    table.date('business_date'); // null: today in the enterprise's time zone
    table.integer('share_withdrawal_notice_days').notNullable().defaultTo(90);
    table.integer('approval_step_time_limit_days').notNullable().defaultTo(7);
    table.integer('provisioning_hour').notNullable().defaultTo(2);
    table.jsonb('provisioning_ladder').notNullable();
    table.string('credit_cap_mode', 10).notNullable().defaultTo('enforce');
    table.boolean('allow_several_open_exercices').notNullable().defaultTo(false);
    table.check('share_withdrawal_notice_days BETWEEN 0 AND 3650', [], 'configuration_notice_days_range');
    table.check('approval_step_time_limit_days BETWEEN 1 AND 365', [], 'configuration_step_limit_range');
    table.check('provisioning_hour BETWEEN 0 AND 23', [], 'configuration_provisioning_hour_range');
    table.check(`credit_cap_mode IN ('enforce', 'warn')`, [], 'configuration_credit_cap_mode_known');
  });
  await touchUpdatedAtOnUpdate(knex, 'enterprise_configurations');

  await knex.schema.createTable('cooperative_profiles', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().unique().references('enterprises.id');
    table.string('approval_number', 50).notNullable().defaultTo('');
    table.string('category', 20); // COBAC EMF category: 1, 2 or 3
    table.date('founding_date');
    table.string('head_office_address', 300).notNullable().defaultTo('');
    table.string('registration_number', 50).notNullable().defaultTo(''); // RCCM / cooperative register
    table.check(`category IS NULL OR category IN ('1', '2', '3')`, [], 'cooperative_profiles_category_known');
  });
  await touchUpdatedAtOnUpdate(knex, 'cooperative_profiles');
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['cooperative_profiles', 'enterprise_configurations', 'exercices_comptables', 'branches', 'enterprises']) {
    await knex.schema.dropTable(table);
  }
}
