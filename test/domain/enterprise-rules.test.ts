import test from 'ava';
import { civilYearOf, dateIn, isValidTimeZone } from '../../domain/calendar';
import { passwordProblems } from '../../domain/password-policy';
import { defaultProvisioningLadder, ladderProblems } from '../../domain/provisioning-ladder';

test('the default ladder is valid', (t) => {
  t.deepEqual(ladderProblems(defaultProvisioningLadder), []);
});

test('a ladder with a gap, an overlap, a closed end, a falling or out-of-range rate is refused step by step', (t) => {
  const problems = ladderProblems([
    { days_from: 0, days_to: 30, rate: '0.1' },
    { days_from: 30, days_to: 90, rate: '0.05' },
    { days_from: 91, days_to: 100, rate: '1.5' },
  ]);
  t.deepEqual(
    problems.map((problem) => problem.field),
    [
      'provisioning_ladder[1].days_from',
      'provisioning_ladder[1].rate',
      'provisioning_ladder[2].days_to',
      'provisioning_ladder[2].rate',
    ],
  );
  t.deepEqual(ladderProblems([]), [
    { field: 'provisioning_ladder', message: 'provisioning_ladder needs at least one step' },
  ]);
});

test('dates are taken in the enterprise time zone', (t) => {
  const lateEvening = new Date('2026-12-31T23:30:00Z');
  t.is(dateIn('UTC', lateEvening), '2026-12-31');
  t.is(dateIn('Africa/Douala', lateEvening), '2027-01-01', 'UTC+1: already the new year in Douala');
  t.deepEqual(civilYearOf('2027-01-01'), { code: '2027', startDate: '2027-01-01', endDate: '2027-12-31' });
  t.true(isValidTimeZone('Africa/Ndjamena'));
  t.false(isValidTimeZone('Africa/Atlantis'));
});

test('the password policy names each problem', (t) => {
  t.deepEqual(passwordProblems('a sound passphrase', 'alice'), []);
  t.deepEqual(
    passwordProblems('short', 'alice').map((problem) => problem.message),
    ['password must be at least 10 characters long'],
  );
  t.deepEqual(
    passwordProblems('0123456789', 'alice').map((problem) => problem.message),
    ['password must not be only digits'],
  );
  t.deepEqual(
    passwordProblems('xxALICExxxx', 'alice').map((problem) => problem.message),
    ['password must not contain the username'],
  );
});
