import type { Knex } from 'knex';

/**
 * Issue 29 (docs/domain.md §13.1): the enterprises that exist before tills get what a new one gets as it works. A
 * vault per branch (its 5710; later branches get theirs from the trigger), and a till per cashier of a branch (a
 * user with an active cashier grant in that branch), assigned to them, each with its sub-account of 5712 "Caisses
 * des guichets", added under 571 when the chart lacks it. Those branches are then under till control: each cashier
 * opens their session before their next cash operation. A cashier of the whole enterprise gets no till: a branch
 * head assigns them one.
 */
const parent = { code: '5712', label: 'Caisses des guichets', parentCode: '571' };

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`INSERT INTO tills (enterprise_id, branch_id, code, label, kind, account_code)
    SELECT b.enterprise_id, b.id, 'VAULT', left('Coffre ' || b.name, 200), 'vault', '5710' FROM branches b
     WHERE NOT EXISTS (SELECT 1 FROM tills t WHERE t.branch_id = b.id AND t.kind = 'vault')`);
  const cashiers: { user_id: string; enterprise_id: string; branch_id: string; username: string }[] = await knex('role_grants as g').join('users as u', 'u.id', 'g.user_id')
    .where({ 'g.role': 'cashier' }).whereNull('g.revoked_at').whereNotNull('g.branch_id')
    .whereNotExists(knex('tills as t').whereRaw('t.cashier_id = g.user_id'))
    .distinctOn('g.user_id').orderBy([{ column: 'g.user_id' }, { column: 'g.created_at' }]).select('g.user_id', 'g.enterprise_id', 'g.branch_id', 'u.username');
  for (const cashier of cashiers) await openTill(knex, cashier);
}

async function openTill(knex: Knex, cashier: { user_id: string; enterprise_id: string; branch_id: string; username: string }): Promise<void> {
  const chart = await knex('company_chart_entries').where({ enterprise_id: cashier.enterprise_id, code: parent.parentCode }).first('chart_id');
  if (chart === undefined) return; // an enterprise without its chart posts nothing
  await knex('company_chart_entries').insert({ chart_id: chart.chart_id, enterprise_id: cashier.enterprise_id, record_id: null, code: parent.code, label: parent.label, class: 5, parent_code: parent.parentCode, is_system: false })
    .onConflict(['chart_id', 'code']).ignore();
  const taken: string[] = await knex('company_chart_entries').where({ chart_id: chart.chart_id, parent_code: parent.code }).pluck('code');
  const next = taken.filter((code) => code.length === 7).map((code) => Number(code.slice(4))).reduce((max, number) => Math.max(max, number), 0) + 1;
  const code = `${parent.code}${String(next).padStart(3, '0')}`;
  const tillCode = `G${String(next).padStart(3, '0')}`;
  await knex('company_chart_entries').insert({ chart_id: chart.chart_id, enterprise_id: cashier.enterprise_id, record_id: null, code, label: `Caisse ${cashier.username}`.slice(0, 200), class: 5, parent_code: parent.code, is_system: false });
  await knex('tills').insert({
    enterprise_id: cashier.enterprise_id, branch_id: cashier.branch_id, code: tillCode, label: `Guichet ${cashier.username}`.slice(0, 200), kind: 'till', account_code: code, cashier_id: cashier.user_id,
  });
}

export async function down(knex: Knex): Promise<void> {
  // The tills this made cannot be told from those made since: nothing is undone.
  await knex.raw('SELECT 1');
}
