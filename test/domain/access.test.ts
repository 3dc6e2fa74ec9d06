import test from 'ava';
import { canSee, holdsRole, visibility, type Grant } from '../../domain/access';

const enterprise = 'e1';
const other = 'e2';
const branch = 'b1';
const sibling = 'b2';

const platformAdmin: Grant = { role: 'admin', enterpriseId: null, branchId: null };
const direction: Grant = { role: 'direction', enterpriseId: enterprise, branchId: null };
const cashier: Grant = { role: 'cashier', enterpriseId: enterprise, branchId: branch };

test('a platform administrator acts and sees everywhere', (t) => {
  t.true(holdsRole([platformAdmin], ['admin'], { enterpriseId: other }));
  t.true(holdsRole([platformAdmin], ['admin'], { enterpriseId: other, branchId: sibling }));
  t.false(holdsRole([platformAdmin], ['cashier'], { enterpriseId: other }), 'but holds no other role');
  t.deepEqual(visibility([platformAdmin]), { all: true });
});

test('an enterprise-wide grant reaches the enterprise and all its branches, nothing else', (t) => {
  t.true(holdsRole([direction], ['direction'], { enterpriseId: enterprise }));
  t.true(holdsRole([direction], ['direction'], { enterpriseId: enterprise, branchId: sibling }));
  t.false(holdsRole([direction], ['direction'], { enterpriseId: other }));
  t.false(holdsRole([direction], ['admin'], { enterpriseId: enterprise }));
});

test('a branch grant acts in its branch only, never on the enterprise itself', (t) => {
  t.true(holdsRole([cashier], ['cashier'], { enterpriseId: enterprise, branchId: branch }));
  t.false(holdsRole([cashier], ['cashier'], { enterpriseId: enterprise, branchId: sibling }));
  t.false(holdsRole([cashier], ['cashier'], { enterpriseId: enterprise }));
});

test('a branch grant sees its enterprise and its branch, not sibling branches', (t) => {
  t.true(canSee([cashier], { enterpriseId: enterprise }));
  t.true(canSee([cashier], { enterpriseId: enterprise, branchId: branch }));
  t.false(canSee([cashier], { enterpriseId: enterprise, branchId: sibling }));
  t.false(canSee([cashier], { enterpriseId: other }));
  t.false(canSee([], { enterpriseId: enterprise }));
});

test('visibility lists enterprises, whole or by branch', (t) => {
  const seen = visibility([
    cashier,
    { role: 'branch_head', enterpriseId: enterprise, branchId: sibling },
    { role: 'direction', enterpriseId: other, branchId: null },
  ]);
  t.false(seen.all);
  if (seen.all) return;
  t.deepEqual(seen.enterprises.get(enterprise), { wholeEnterprise: false, branchIds: new Set([branch, sibling]) });
  t.deepEqual(seen.enterprises.get(other), { wholeEnterprise: true, branchIds: new Set() });
});
