import * as yup from 'yup';
import { reportHeading } from '../../../activities/accounts/statement-documents';
import { writeOffCandidatesAt, writtenOffBetween } from '../../../activities/loans/write-off-reports';
import { yearsSince } from '../../../domain/loans/provisioning';
import { netLoss } from '../../../domain/loans/write-off';
import { writeOffCandidatesDocument, writeOffRegisterDocument } from '../../../domain/loans/write-off.document';
import { formatAmount, Money } from '../../../domain/money';
import { answerReport, formatParameter } from '../../report-download';
import { defineRoute } from '../../route';
import { dateResponse, isoDate, nullableId } from '../common.schemas';
import { moneyResponse } from '../money.schemas';
import { branchesOf } from './arrears-statement.routes';

const reportQuery = {
  enterprise: yup.string().uuid().required(),
  branch: yup.string().uuid().optional().meta({ description: 'One branch; default: every branch the caller sees.' }),
  format: formatParameter,
};

const loanFields = {
  loan: yup.string().uuid().required(),
  number: yup.string().required(),
  branch: yup.string().uuid().required(),
  branch_code: yup.string().required(),
  member: yup.string().uuid().required(),
  member_number: yup.string().required(),
  member_name: yup.string().required(),
};

const candidateSchema = yup
  .object({
    ...loanFields,
    doubtful_since: dateResponse(),
    years_doubtful: yup
      .number()
      .integer()
      .required()
      .meta({ description: 'Whole years doubtful at the date: 3 or more.' }),
    litigious: yup.boolean().required(),
    outstanding_principal: moneyResponse(),
    provision_amount: moneyResponse(),
    provision_account: yup.string().nullable().defined(),
  })
  .meta({ component: 'WriteOffCandidate' });

const candidatesSchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    branch: nullableId(),
    date: dateResponse(),
    loans: yup.array(candidateSchema).required(),
    outstanding_principal: moneyResponse().meta({ description: "The loans' outstanding principal, summed." }),
    provision_amount: moneyResponse().meta({ description: 'Their provisions, summed.' }),
  })
  .meta({ component: 'WriteOffCandidates' });

const writtenOffSchema = yup
  .object({
    ...loanFields,
    written_off_on: dateResponse(),
    written_off_amount: moneyResponse(),
    proposed_by: nullableId("The write-off's maker."),
    proposed_by_name: yup.string().nullable().defined(),
    approved_by: nullableId('The checker of its four-eyes request; null when the policy let one person write it off.'),
    approved_by_name: yup.string().nullable().defined(),
    approval_request: nullableId(),
    related_party_approval: yup.string().defined().meta({
      description: "The recorded approval a related party's write-off needs (R-2017/07 Art. 26); '' otherwise.",
    }),
    recovered: moneyResponse().meta({ description: 'Recovered since the write-off, to this day.' }),
    net_loss: moneyResponse().meta({ description: 'written_off_amount − recovered.' }),
  })
  .meta({ component: 'WrittenOffLoan' });

const registerSchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    branch: nullableId(),
    from: dateResponse(),
    to: dateResponse(),
    loans: yup.array(writtenOffSchema).required(),
    written_off_amount: moneyResponse(),
    recovered: moneyResponse(),
    net_loss: moneyResponse(),
  })
  .meta({ component: 'WriteOffRegister' });

const sum = (values: readonly string[]) =>
  formatAmount(values.reduce((total, value) => total.plus(value), new Money(0)));

/**
 * The write-off alert (R-2017/07 Art. 10) and the write-off register with its recoveries (issue 30, docs/domain.md
 * §14.3).
 */
export const writeOffReportRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/write-off-candidates/',
    module: 'loans',
    operationId: 'getWriteOffCandidates',
    summary:
      'Doubtful loans due for write-off at a date: doubtful for 3 years or ' +
      'more (COBAC R-2017/07 Art. 10), with their outstanding and provision',
    description:
      "The loans active and doubtful now (the last provisioning run's class) " +
      'whose downgrade is 3 years or more before the date; oldest first.',
    access: 'authenticated',
    query: yup.object({ ...reportQuery, date: isoDate().required() }),
    downloadable: true,
    errorStatuses: [401, 404],
    response: candidatesSchema,
    handler: async ({ query, principal, deps, ctx }) => {
      const branches = await branchesOf(deps.knex, principal, query.enterprise, query.branch);
      const rows = await writeOffCandidatesAt(deps.knex, { enterpriseId: query.enterprise, branches }, query.date);
      const loans = rows.map((row) => ({ ...row, years_doubtful: yearsSince(row.doubtful_since, query.date) }));
      const answer = {
        enterprise: query.enterprise,
        branch: query.branch ?? null,
        date: query.date,
        loans,
        outstanding_principal: sum(loans.map((row) => row.outstanding_principal)),
        provision_amount: sum(loans.map((row) => row.provision_amount)),
      };
      return answerReport(ctx, query.format, answer, {
        report: 'write-off-candidates',
        document: async () =>
          writeOffCandidatesDocument(
            await reportHeading(deps.knex, { enterpriseId: query.enterprise, branch: answer.branch }, deps.clock()),
            query.date,
            [
              ...loans.map((row) => ({
                ...row,
                years_doubtful: String(row.years_doubtful),
                litigious: String(row.litigious),
              })),
              {
                number: 'Total',
                outstanding_principal: answer.outstanding_principal,
                provision_amount: answer.provision_amount,
              },
            ],
          ),
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/write-off-register/',
    module: 'loans',
    operationId: 'getWriteOffRegister',
    summary: 'The loans written off over a period: amount, date, proposer and approver, recoveries and net loss',
    access: 'authenticated',
    query: yup.object({
      ...reportQuery,
      from: isoDate().required(),
      to: isoDate()
        .required()
        .test(
          'ordered',
          'to must not be before from',
          (to, { parent }) => to === undefined || parent.from === undefined || to >= parent.from,
        ),
    }),
    downloadable: true,
    errorStatuses: [401, 404],
    response: registerSchema,
    handler: async ({ query, principal, deps, ctx }) => {
      const branches = await branchesOf(deps.knex, principal, query.enterprise, query.branch);
      const rows = await writtenOffBetween(deps.knex, { enterpriseId: query.enterprise, branches }, query);
      const loans = rows.map((row) => ({
        ...row,
        net_loss: formatAmount(netLoss(new Money(row.written_off_amount), new Money(row.recovered))),
      }));
      const answer = {
        enterprise: query.enterprise,
        branch: query.branch ?? null,
        from: query.from,
        to: query.to,
        loans,
        written_off_amount: sum(loans.map((row) => row.written_off_amount)),
        recovered: sum(loans.map((row) => row.recovered)),
        net_loss: sum(loans.map((row) => row.net_loss)),
      };
      const totals = {
        number: 'Total',
        written_off_amount: answer.written_off_amount,
        recovered: answer.recovered,
        net_loss: answer.net_loss,
      };
      return answerReport(ctx, query.format, answer, {
        report: 'write-off-register',
        document: async () =>
          writeOffRegisterDocument(
            await reportHeading(deps.knex, { enterpriseId: query.enterprise, branch: answer.branch }, deps.clock()),
            { from: query.from, to: query.to },
            loans,
            totals,
          ),
      });
    },
  }),
];
