import { allHandlersFinished, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { stepRetry } from './activity-calls';
import type { Refused } from '../activities/refusal-outcome';
import type { ErrorCode } from '../domain/error-catalogue';
import type { RefundDeadline } from '../activities/shares/share-withdrawals.activity';
import {
  cancelWithdrawalUpdate,
  extendRefundUpdate,
  refundUpdate,
  withdrawalStateQuery,
  type ShareWithdrawalView,
} from './definitions';
import { refuse } from './refusal';
import { tagWorkflow } from './tags';

export interface ShareWithdrawalInput {
  withdrawalId: string;
  enterpriseId: string;
  branchId: string;
  withdrawalNumber: string;
  noticeDays: number;
  /** Days before the refund falls due when the board is reminded (configuration). */
  refundReminderDays: number;
  /** Length of a day for the timers, in milliseconds: 86 400 000, shorter in tests and training environments. */
  dayMs: number;
}

const {
  makeShareWithdrawalEffective,
  cancelShareWithdrawal,
  extendShareRefund,
  refundShareWithdrawal,
  flagShareRefund,
} = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: stepRetry,
});

/** `condition` with a timeout that may already be spent (a zero-day notice, a reminder due at once). */
const waitUntil = async (done: () => boolean, timeoutMs: number): Promise<boolean> =>
  done() || (timeoutMs > 0 && (await condition(done, timeoutMs)));

/** The refund's next flag and its time from the effective date: the reminder, then overdue; none once both are set. */
function nextRefundFlag(
  view: ShareWithdrawalView,
  refundDueDays: number,
  input: ShareWithdrawalInput,
): { flag: 'reminder' | 'overdue'; atMs: number } | undefined {
  const dueMs = refundDueDays * input.dayMs;
  if (!view.refundReminded) return { flag: 'reminder', atMs: dueMs - input.refundReminderDays * input.dayMs };
  if (!view.refundOverdue) return { flag: 'overdue', atMs: dueMs };
  return undefined;
}

/** What the workflow knows: the view it answers with, whether a decision is being written, the refund's days. */
interface WithdrawalState {
  view: ShareWithdrawalView;
  busy: boolean;
  refundDueDays: number;
}

/** Runs the activity of a decision; a refusal it returns becomes the Update's failure, nothing moved. */
async function persist<R extends object>(
  state: WithdrawalState,
  work: () => Promise<R | Refused>,
  apply: (result: R) => void,
): Promise<ShareWithdrawalView> {
  state.busy = true;
  try {
    const result = await work();
    if ('outcome' in result && result.outcome === 'refused') return refuse(result.code, result.message);
    apply(result as R);
    return state.view;
  } finally {
    state.busy = false;
  }
}

const expect = (state: WithdrawalState, status: ShareWithdrawalView['status'], code: ErrorCode, what: string) => {
  if (state.busy) refuse('decision_in_progress', 'Another decision on this withdrawal is being recorded: try again.');
  if (state.view.status !== status) refuse(code, `The withdrawal is ${state.view.status}: ${what}.`);
};

const deadline = (state: WithdrawalState, result: RefundDeadline, refundExtended = state.view.refundExtended) => {
  state.refundDueDays = result.refundDueDays;
  state.view = {
    ...state.view,
    status: result.status,
    effectiveOn: result.effectiveOn,
    refundDueOn: result.refundDueOn,
    refundExtended,
    refundReminded: false,
    refundOverdue: false,
  };
};

/** The Updates that cancel the withdrawal, extend its refund period or record its refund. */
function setDecisionHandlers(input: ShareWithdrawalInput, state: WithdrawalState): void {
  setHandler(
    cancelWithdrawalUpdate,
    (request) =>
      persist(
        state,
        () => cancelShareWithdrawal({ withdrawalId: input.withdrawalId, ...request }),
        () => (state.view = { ...state.view, status: 'cancelled' }),
      ),
    {
      validator: (_request) =>
        expect(state, 'notice', 'withdrawal_not_in_notice', 'only a withdrawal in its notice period can be cancelled'),
    },
  );
  setHandler(
    extendRefundUpdate,
    (request) =>
      persist(
        state,
        () => extendShareRefund({ withdrawalId: input.withdrawalId, ...request }),
        (result) => deadline(state, result, true),
      ),
    {
      validator: (_request) => {
        expect(state, 'effective', 'refund_not_owed', 'no refund is waiting');
        if (state.view.refundExtended)
          refuse('refund_already_extended', 'The refund period was extended once already (two years at most).');
      },
    },
  );
  setHandler(
    refundUpdate,
    (request) =>
      persist(
        state,
        () => refundShareWithdrawal({ withdrawalId: input.withdrawalId, ...request }),
        () => (state.view = { ...state.view, status: 'refunded' }),
      ),
    {
      validator: (_request) => expect(state, 'effective', 'refund_not_owed', 'no refund is waiting'),
    },
  );
}

/**
 * The refund is owed: remind, then flag it overdue. Time is counted from the effective date by the waits
 * themselves; an extension only moves the deadlines later, so a wait never overshoots: when one ends, the
 * deadlines are read again.
 */
async function flagRefundUntilMade(input: ShareWithdrawalInput, state: WithdrawalState): Promise<void> {
  let elapsedMs = 0;
  while (state.view.status === 'effective') {
    const next = nextRefundFlag(state.view, state.refundDueDays, input);
    const dueOn = state.view.refundDueOn;
    const moved = () => state.view.status !== 'effective' || state.view.refundDueOn !== dueOn;
    if (next === undefined) {
      await condition(moved);
      continue;
    }
    if (next.atMs > elapsedMs) {
      if (await waitUntil(() => state.view.status !== 'effective', next.atMs - elapsedMs)) continue;
      elapsedMs = next.atMs;
    }
    await condition(() => !state.busy);
    if (moved()) continue;
    await flagShareRefund({ withdrawalId: input.withdrawalId, flag: next.flag });
    state.view =
      next.flag === 'reminder' ? { ...state.view, refundReminded: true } : { ...state.view, refundOverdue: true };
  }
}

/**
 * A member's withdrawal of shares (AUSCOOP Art. 11, the seed): the notice period as a durable timer, during
 * which the member or the board may cancel; then the shares are cancelled and the refund is owed, due within a
 * year (two by the board's decision); a reminder before that date, the refund overdue after it; the refund,
 * made at the till or to the member's account, ends it. Decisions are Updates persisted by an activity before
 * the state moves; one at a time.
 */
export async function shareWithdrawal(input: ShareWithdrawalInput): Promise<ShareWithdrawalView> {
  const state: WithdrawalState = {
    view: {
      status: 'notice',
      effectiveOn: null,
      refundDueOn: null,
      refundExtended: false,
      refundReminded: false,
      refundOverdue: false,
    },
    busy: false,
    refundDueDays: 0,
  };
  tagWorkflow({ enterpriseId: input.enterpriseId, branchId: input.branchId, businessId: input.withdrawalNumber });
  setHandler(withdrawalStateQuery, () => state.view);
  setDecisionHandlers(input, state);

  // 1. The notice period, unless cancelled; a cancellation being written when it ends still counts.
  await waitUntil(() => state.view.status !== 'notice', input.noticeDays * input.dayMs);
  await condition(() => !state.busy);
  if (state.view.status === 'notice')
    deadline(state, await makeShareWithdrawalEffective({ withdrawalId: input.withdrawalId }));

  // 2. The refund is owed: remind, then flag it overdue, until it is made.
  await flagRefundUntilMade(input, state);
  await condition(allHandlersFinished);
  return state.view;
}
