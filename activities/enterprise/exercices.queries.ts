import type { Knex } from 'knex';
import { ExerciceComptable } from '../../db/models/exercice-comptable.model';
import type { ExerciceClosingRow } from './exercice-closing-row';

/** The reads of the accounting years and of their latest closing by the yearEndClosing workflow. */

/** A year with its latest closing; undefined when it was never closed. */
export interface ExerciceWithClosing {
  exercice: ExerciceComptable;
  closing: ExerciceClosingRow | undefined;
}

export const exercicesQuery = (knex: Knex) => ExerciceComptable.query(knex);

export const exerciceById = async (knex: Knex, id: string) => ExerciceComptable.query(knex).findById(id);

/** The years each with its latest closing, in one query. */
export async function withLatestClosing(
  knex: Knex,
  exercices: readonly ExerciceComptable[],
): Promise<ExerciceWithClosing[]> {
  const rows: ExerciceClosingRow[] = await knex('exercice_closings')
    .distinctOn('exercice_id')
    .whereIn(
      'exercice_id',
      exercices.map((exercice) => exercice.id),
    )
    .orderBy([{ column: 'exercice_id' }, { column: 'created_at', order: 'desc' }]);
  const latest = new Map(rows.map((row) => [row.exercice_id, row]));
  return exercices.map((exercice) => ({ exercice, closing: latest.get(exercice.id) }));
}

/** One year with its latest closing. */
export const exerciceWithClosing = async (knex: Knex, exercice: ExerciceComptable) =>
  (await withLatestClosing(knex, [exercice]))[0]!;
