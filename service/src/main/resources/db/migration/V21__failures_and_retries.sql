-- Failure as a lease outcome, attempts and a retry policy per item, and a kind for every request the
-- system raises (docs/http-api.md, "Failures and retries").

-- A holder may end its lease with 'failed' and the error it met; only failed leases carry one.
alter table lease_history drop constraint lease_history_outcome_known;
alter table lease_history add constraint lease_history_outcome_known check (outcome in
    ('completed', 'released', 'cancelled', 'decomposed', 'attention_requested', 'expired', 'failed'));
alter table lease_history add column error jsonb;
alter table lease_history add constraint lease_history_error_only_when_failed
    check (error is null or (outcome = 'failed' and jsonb_typeof(error) = 'object'));

-- Attempts: the item's leases that ended failed or expired since it was created or since a human
-- answered its "retries exhausted" request. The retry policy is written on the item when it is
-- created ({maxAttempts, backoffSeconds, maxBackoffSeconds}: given, else the parent's, else the
-- service's defaults); null on rows written before this migration, which use the defaults.
alter table work_items add column attempts integer not null default 0
    constraint work_items_attempts_non_negative check (attempts >= 0);
alter table work_items add column retry jsonb
    constraint work_items_retry_object check (retry is null or jsonb_typeof(retry) = 'object');

-- Why the system opened a request: the crash-loop guard, attempts used up, or no progress.
alter table attention_requests add column kind text;
update attention_requests set kind = 'crash_loop' where raised_by = 'system';
alter table attention_requests add constraint attention_requests_kind_known
    check (kind in ('crash_loop', 'retries_exhausted', 'no_progress'));
alter table attention_requests add constraint attention_requests_kind_iff_raised_by_system
    check ((raised_by = 'system') = (kind is not null));
