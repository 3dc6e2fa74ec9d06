import test from 'ava';
import { effectivePolicy, fourEyesRule } from '../../domain/approvals/policy';
import { decisionRefusal } from '../../domain/approvals/request';
import { Money } from '../../domain/money';

test(
  "the policy: the defaults, an enterprise's line over " + 'them, a threshold under which the operation runs at once',
  (t) => {
    const defaults = effectivePolicy([]);
    t.truthy(fourEyesRule(defaults, 'business_date.move'));
    t.is(fourEyesRule(defaults, 'member_account.withdrawal', new Money('4999999')), null, 'under 5 000 000: at once');
    t.truthy(fourEyesRule(defaults, 'member_account.withdrawal', new Money('5000000')));
    const relaxed = effectivePolicy([
      { operation: 'business_date.move', fourEyes: false, approverRoles: ['admin'], threshold: null, lifetimeDays: 1 },
    ]);
    t.is(fourEyesRule(relaxed, 'business_date.move'), null);
    t.is(relaxed.length, defaults.length, 'every operation has its line');
  },
);

test("a decision is refused to the maker, to a decider without the policy's roles, and on a decided request", (t) => {
  const pending = { status: 'pending' as const, makerId: 'maker', approverRoles: ['direction', 'admin'] as const };
  t.is(decisionRefusal(pending, { deciderId: 'maker', deciderRoles: ['admin'] })?.code, 'approval_own_request');
  t.is(decisionRefusal(pending, { deciderId: 'other', deciderRoles: ['branch_head'] })?.code, 'approval_role_required');
  t.is(
    decisionRefusal({ ...pending, status: 'expired' }, { deciderId: 'other', deciderRoles: ['admin'] })?.code,
    'approval_request_closed',
  );
  t.is(decisionRefusal(pending, { deciderId: 'other', deciderRoles: ['direction'] }), null);
});
