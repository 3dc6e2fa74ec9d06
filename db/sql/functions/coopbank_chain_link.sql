-- Appends a row to its enterprise's hash chain (20261201400000_audit_trail_chain, docs/architecture.md §4 "Tamper
-- evidence"): hash = sha256(previous hash || canonical text). The enterprise's one chain_heads row is locked
-- first, for both chains, so concurrent commits chain one after the other and every committer takes the head
-- before any journal counter (no deadlock). Called at commit by coopbank_chain_committed_row, and by the backfill.
CREATE OR REPLACE FUNCTION public.coopbank_chain_link(chain text, enterprise uuid, row_id text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    DECLARE
      head_key uuid := coalesce(enterprise, '00000000-0000-0000-0000-000000000000'::uuid);
      head record;
      previous bytea;
      next_position bigint;
      next_hash bytea;
    BEGIN
      INSERT INTO public.ledger_chain_heads AS h (chain_key) VALUES (head_key) ON CONFLICT ON CONSTRAINT ledger_chain_heads_pkey DO NOTHING;
      SELECT * INTO head FROM public.ledger_chain_heads h WHERE h.chain_key = head_key FOR UPDATE;
      IF chain = 'journal_entries' THEN
        previous := head.entries_hash;
        next_position := head.entries_position + 1;
      ELSE
        previous := head.audit_hash;
        next_position := head.audit_position + 1;
      END IF;
      next_hash := sha256(coalesce(previous, ''::bytea) || convert_to(coopbank_chain_row(chain, row_id), 'UTF8'));
      INSERT INTO public.ledger_chain_links (chain, chain_key, position, entry_id, audit_event_id, previous_hash, hash)
      VALUES (chain, head_key, next_position, CASE WHEN chain = 'journal_entries' THEN row_id::uuid END,
              CASE WHEN chain = 'audit_events' THEN row_id::bigint END, previous, next_hash);
      IF chain = 'journal_entries' THEN
        UPDATE public.ledger_chain_heads h SET entries_position = next_position, entries_hash = next_hash WHERE h.chain_key = head_key;
      ELSE
        UPDATE public.ledger_chain_heads h SET audit_position = next_position, audit_hash = next_hash WHERE h.chain_key = head_key;
      END IF;
    END $function$
