-- Worker tokens limited to some queues (docs/adr: "Worker tokens limited to some queues"). Null: every queue.
alter table access_tokens add column queues text[];

alter table access_tokens
    add constraint access_tokens_queues_only_for_workers check (queues is null or role = 'worker'),
    add constraint access_tokens_queues_count check (queues is null or cardinality(queues) between 1 and 100);
