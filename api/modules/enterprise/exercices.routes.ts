import type { Knex } from 'knex';
import * as yup from 'yup';
import { createExercice, setExerciceStatus } from '../../../activities/enterprise/exercices.activity';
import { NotFoundError } from '../../../domain/errors';
import { ExerciceComptable } from '../../../db/models/exercice-comptable.model';
import { requireVisible } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { listQuerySchema, pageSchema, paginate, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { codeSchema, dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse } from '../common.schemas';
import { scopeToVisible, withNestedVariant } from '../enterprise-scope';

const exerciceSchema = yup.object({
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  code: yup.string().required(),
  start_date: dateResponse(),
  end_date: dateResponse(),
  status: yup.string().oneOf(['open', 'closed']).required(),
  closed_at: timestampResponse().nullable(),
  closed_by: yup.string().uuid().nullable().defined(),
}).meta({ component: 'ExerciceComptable' });

function serializeExercice(exercice: ExerciceComptable) {
  return {
    id: exercice.id,
    enterprise: exercice.enterpriseId,
    code: exercice.code,
    start_date: exercice.startDate,
    end_date: exercice.endDate,
    status: exercice.status,
    closed_at: exercice.closedAt?.toISOString() ?? null,
    closed_by: exercice.closedBy,
  };
}

async function visibleExercice(knex: Knex, principal: Principal, id: string, enterprise: string | undefined): Promise<ExerciceComptable> {
  const exercice = await ExerciceComptable.query(knex).findById(id);
  if (exercice === undefined || (enterprise !== undefined && exercice.enterpriseId !== enterprise)) throw new NotFoundError('The accounting year');
  requireVisible(principal, { enterpriseId: exercice.enterpriseId }, 'The accounting year');
  return exercice;
}

const statusChange = (action: 'close' | 'reopen') =>
  defineRoute({
    method: 'post',
    path: `/api/v1/enterprise/exercices/{id}/${action}/`,
    module: 'enterprise',
    operationId: `${action}Exercice`,
    summary: action === 'close' ? 'Close an accounting year: final for postings (direction, administrators)' : 'Reopen a closed accounting year (administrators, with a reason)',
    access: action === 'close' ? ['direction', 'admin'] : ['admin'],
    params: idParams,
    query: yup.object({ enterprise: enterpriseFilter }),
    body: yup.object({ reason: action === 'close' ? yup.string().trim().max(500).default('') : yup.string().trim().required().min(5).max(500) }),
    response: exerciceSchema,
    errorStatuses: [401, 403, 404, 409],
    handler: async ({ params, query, body, principal: actor, deps, authorize }) => {
      const exercice = await visibleExercice(deps.knex, actor, params.id, query.enterprise);
      authorize({ enterpriseId: exercice.enterpriseId }, 'The accounting year');
      return serializeExercice(await setExerciceStatus(deps.activities, actor, exercice.id, action === 'close' ? 'closed' : 'open', body.reason));
    },
  });

/** Accounting years (exercices comptables): dates never overlap, one open at a time unless configured. */
export const exerciceRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/exercices/',
    module: 'enterprise',
    operationId: 'listExercices',
    summary: 'List accounting years',
    access: 'authenticated',
    query: listQuerySchema(['code', 'start_date'], { enterprise: enterpriseFilter, status: yup.string().oneOf(['open', 'closed']).optional() }),
    errorStatuses: [401],
    response: pageSchema(exerciceSchema),
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = scopeToVisible(ExerciceComptable.query(deps.knex), principal, { enterprise: 'enterprise_id' });
      whereFilters(builder, query, { enterprise: 'enterprise_id', status: 'status' });
      const page = await paginate(builder, { query, url: new URL(ctx.href), orderingColumns: { code: 'code', start_date: 'start_date' }, defaultOrdering: '-start_date' });
      return { ...page, results: page.results.map(serializeExercice) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/enterprise/exercices/',
    module: 'enterprise',
    operationId: 'createExercice',
    summary: 'Open an accounting year (direction, administrators)',
    access: ['direction', 'admin'],
    status: 201,
    location: '/api/v1/enterprise/exercices/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      code: codeSchema(20),
      start_date: isoDate().required(),
      end_date: isoDate().required(),
    }),
    response: exerciceSchema,
    errorStatuses: [401, 403, 404, 409],
    handler: async ({ body, principal: actor, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      const exercice = await createExercice(deps.activities, actor, body.enterprise, { code: body.code, startDate: body.start_date, endDate: body.end_date });
      return serializeExercice(exercice);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/exercices/{id}/',
    module: 'enterprise',
    operationId: 'getExercice',
    summary: 'Accounting year detail',
    access: 'authenticated',
    params: idParams,
    query: yup.object({ enterprise: enterpriseFilter }),
    response: exerciceSchema,
    errorStatuses: [401, 404],
    handler: async ({ params, query, principal, deps }) => serializeExercice(await visibleExercice(deps.knex, principal, params.id, query.enterprise)),
  }),
  statusChange('close'),
  statusChange('reopen'),
].flatMap(withNestedVariant);
