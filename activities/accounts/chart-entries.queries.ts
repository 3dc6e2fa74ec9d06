import type { Knex } from 'knex';
import { CompanyChartEntry } from '../../db/models/company-chart-entry.model';

/** The reads of an enterprise's chart and of its accounts (entries), each with whether it is a leaf. */

/** The charts' accounts, each with its leaf flag. */
export const chartEntriesQuery = (knex: Knex) => CompanyChartEntry.withLeafFlag(CompanyChartEntry.query(knex));

/** One account of a chart, with its leaf flag. */
export const chartEntryById = async (knex: Knex, chartId: string, id: string) =>
  chartEntriesQuery(knex).where({ 'company_chart_entries.chart_id': chartId, 'company_chart_entries.id': id }).first();
