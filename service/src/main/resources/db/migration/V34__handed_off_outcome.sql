-- Handoff (docs/http-api.md, "Hand off"): a lease may end with the outcome 'handed_off', its item
-- leased to the named successor in the same transaction. The list names every outcome of the
-- service's HTTP contract ('failed' for failures, 'waiting' for durable waits), so that it stays
-- whole whichever of the migrations that widen it ran last. Added NOT VALID and validated apart:
-- the check of existing rows then holds no lock that stops writers.
alter table lease_history drop constraint lease_history_outcome_known;

alter table lease_history add constraint lease_history_outcome_known check (outcome in
    ('completed', 'released', 'cancelled', 'decomposed', 'attention_requested', 'expired', 'failed', 'waiting',
     'handed_off')) not valid;

alter table lease_history validate constraint lease_history_outcome_known;
