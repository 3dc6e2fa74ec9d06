-- The account of the `cash` role for one operation (issue 29, 20261204000000_tills; docs/domain.md §13.1): the one
-- place the till control is applied (coopbank_under_till_control says where it holds). Work of the system (no actor)
-- and a branch with no till assigned (the vault is the counter) keep the default account, 5710. In a branch under
-- till control, the operator's open session names their till's account; without one the operation is refused. The
-- session is share-locked: its close waits for the operations in flight, and an operation after the close finds it
-- closed.
CREATE OR REPLACE FUNCTION public.coopbank_cash_account(branch uuid, actor uuid, default_account text)
 RETURNS text
 LANGUAGE plpgsql
AS $function$
    #variable_conflict use_variable
    DECLARE
      till_account text;
    BEGIN
      IF actor IS NULL OR branch IS NULL OR NOT coopbank_under_till_control(branch) THEN
        RETURN default_account;
      END IF;
      SELECT t.account_code INTO till_account
        FROM till_sessions s JOIN tills t ON t.id = s.till_id
       WHERE s.branch_id = branch AND s.cashier_id = actor AND s.status = 'open'
         FOR SHARE OF s;
      IF NOT FOUND THEN
        PERFORM coopbank_refuse('CB409', 'till_session_required', 'The branch is under till control: the operator must open their till session before a cash operation.');
      END IF;
      RETURN till_account;
    END $function$
