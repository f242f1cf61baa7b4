-- Long-poll claims wait for items to become ready without polling: every statement that makes items
-- ready (inserts rows into ready_items, the one place readiness is kept) sends one notification per
-- distinct queue on the channel work_graph_ready, with the queue name as payload (at most 100 bytes,
-- far below NOTIFY's 8000). Statement level with a transition table, so a decomposition that readies
-- a thousand children in one queue sends one notification, not a thousand; PostgreSQL also folds
-- identical notifications within a transaction and delivers them only at commit, when the items
-- can be claimed. Every instance LISTENs on one connection of its own (docs/adr/0008).
create function notify_ready_queues() returns trigger
    language plpgsql
as $$
declare
    ready_queue text;
begin
    for ready_queue in select distinct queue from newly_ready loop
        perform pg_notify('work_graph_ready', ready_queue);
    end loop;
    return null;
end;
$$;

create trigger ready_items_notify
    after insert on ready_items
    referencing new table as newly_ready
    for each statement
    execute function notify_ready_queues();
