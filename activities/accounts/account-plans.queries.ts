import type { Knex } from 'knex';
import { AccountPlan } from '../../db/models/account-plan.model';
import { AccountRecord } from '../../db/models/account-record.model';
import { CompanyChart } from '../../db/models/company-chart.model';

/** The reads of the standard plans, their accounts (records) and the enterprises' charts. */

export const accountPlansQuery = (knex: Knex) => AccountPlan.query(knex);

export const accountPlanById = async (knex: Knex, id: string) => AccountPlan.query(knex).findById(id);

export const accountRecordsQuery = (knex: Knex) => AccountRecord.query(knex);

/** The accounts of one class of a plan, by code. */
export const recordsOfClass = async (knex: Knex, planId: string, accountClass: number) =>
  AccountRecord.query(knex).where({ plan_id: planId, class: accountClass }).orderBy('code');

export const companyChartsQuery = (knex: Knex) => CompanyChart.query(knex);
