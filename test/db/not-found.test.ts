import { randomUUID } from 'node:crypto';
import test from 'ava';
import { AppError } from '../../domain/errors';
import { Loan } from '../../db/models/loan.model';
import { createTestDatabase } from '../helpers/database';

test(
  "throwIfNotFound throws the product's not-found " + 'error (a 404 not_found), not a bare Objection error',
  async (t) => {
    const { knex } = await createTestDatabase(t);
    const error = await t.throwsAsync(Loan.query(knex).findById(randomUUID()).throwIfNotFound(), {
      instanceOf: AppError,
    });
    t.like(error, { kind: 'not_found', code: 'not_found', message: 'The Loan was not found.' });
  },
);
