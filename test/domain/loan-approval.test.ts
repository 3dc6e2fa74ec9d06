import test from 'ava';
import {
  applyDecision,
  approvalLimitProblems,
  approvalSteps,
  finalStepFor,
  initialApprovalState,
  refusalOf,
  type ApprovalState,
  type DecisionRequest,
} from '../../domain/loans/approval';
import { Money } from '../../domain/money';

const request = (
  deciderId: string,
  step: DecisionRequest['step'],
  decision: DecisionRequest['decision'] = 'approve',
  comment = '',
): DecisionRequest => ({ deciderId, step, decision, comment });
const decide = (state: ApprovalState, decision: DecisionRequest): ApprovalState => {
  const refusal = refusalOf(state, decision);
  if (refusal !== null) throw new Error(refusal.code);
  return applyDecision(state, { ...decision, decidedAt: '2026-11-22T10:00:00Z' });
};

test('four approvals by four people walk the circuit in order and end approved', (t) => {
  let state = initialApprovalState();
  t.is(state.step, 'cashier');
  for (const [index, step] of approvalSteps.entries()) {
    state = decide(state, request(`user-${index}`, step));
    t.is(state.step, approvalSteps[index + 1] ?? null);
  }
  t.like(state, { status: 'approved', step: null });
  t.is(state.decisions.length, 4);
});

test('refusals: wrong step, one person on two steps, after the end, send back from the first step, no comment', (t) => {
  const start = initialApprovalState();
  t.is(refusalOf(start, request('a', 'branch_head'))?.code, 'wrong_step');
  t.is(refusalOf(start, request('a', 'cashier', 'send_back', 'why'))?.code, 'nothing_to_send_back');
  t.is(refusalOf(start, request('a', 'cashier', 'reject', '  '))?.code, 'comment_required');
  const atHead = decide(start, request('a', 'cashier'));
  t.is(refusalOf(atHead, request('a', 'branch_head'))?.code, 'same_person_twice');
  t.is(refusalOf(atHead, request('b', 'branch_head')), null);
  const rejected = decide(atHead, request('b', 'branch_head', 'reject', 'no income'));
  t.like(rejected, { status: 'rejected', step: null });
  t.is(refusalOf(rejected, request('c', 'credit_committee'))?.code, 'application_closed');
});

test('send back returns to the previous step, whose decider may decide it again', (t) => {
  let state = decide(initialApprovalState(), request('a', 'cashier'));
  state = decide(state, request('b', 'branch_head'));
  state = decide(state, request('c', 'credit_committee', 'send_back', 'collateral missing'));
  t.like(state, { status: 'in_review', step: 'branch_head' });
  t.is(refusalOf(state, request('b', 'branch_head')), null, 'the same step, decided again by the same person');
  t.is(
    refusalOf(state, request('c', 'branch_head'))?.code,
    'same_person_twice',
    'the committee member may not decide the branch step',
  );
});

test('amount limits: the first step whose limit covers the amount grants the loan; limits must grow', (t) => {
  const limits = { branch_head: '500000', credit_committee: '5000000' };
  t.is(finalStepFor(new Money(500000), limits), 'branch_head');
  t.is(finalStepFor(new Money(500001), limits), 'credit_committee');
  t.is(finalStepFor(new Money(5000001), limits), 'direction');
  t.is(finalStepFor(new Money(1), {}), 'direction', 'no limits: all four steps');
  t.deepEqual(approvalLimitProblems(limits), []);
  t.deepEqual(
    approvalLimitProblems({ cashier: '600000', branch_head: '500000' }).map((problem) => problem.field),
    ['approval_limits.branch_head'],
  );
  t.deepEqual(
    approvalLimitProblems({ cashier: '1.5' }).map((problem) => problem.field),
    ['approval_limits.cashier'],
  );
  let state = decide(initialApprovalState(), request('a', 'cashier'));
  state = applyDecision(state, { ...request('b', 'branch_head'), decidedAt: '2026-11-22T10:00:00Z' }, 'branch_head');
  t.like(state, { status: 'approved', step: null });
});
