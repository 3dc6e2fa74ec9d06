import type { Knex } from 'knex';
import { SavingsProduct } from '../../db/models/savings-product.model';

/** The reads of savings products and of their interest rates' history. */

/** A rate of a product and the day it applies from. */
export interface ProductRateRow {
  effective_from: string;
  annual_rate: string;
  reason: string;
  created_at: Date;
}

export const savingsProductsQuery = (knex: Knex) => SavingsProduct.query(knex);

export const savingsProductById = async (knex: Knex, id: string) => SavingsProduct.query(knex).findById(id);

/** A product's rates, oldest first. */
export const productRates = (knex: Knex, productId: string): Promise<ProductRateRow[]> =>
  knex('savings_product_rates')
    .where({ product_id: productId })
    .orderBy('effective_from')
    .select(
      knex.raw(`to_char(effective_from, 'YYYY-MM-DD') AS effective_from`),
      knex.raw('annual_rate::text AS annual_rate'),
      'reason',
      'created_at',
    );
