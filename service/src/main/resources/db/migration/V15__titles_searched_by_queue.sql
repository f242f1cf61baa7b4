-- A title search within a queue read the queue's items in id order and checked each one's title by
-- key, because the titles' index knew nothing of queues: a word absent from a queue of millions read
-- all of them (seconds). An item's queue never changes (V13's trigger refuses it), nor does its
-- title, so the queue is copied beside the title and one GIN index holds both: a search within a
-- queue asks it for that queue's titles that hold the pattern. btree_gin gives GIN the queue's
-- equality (a trusted extension, as pg_trgm is). A search without a queue uses the title's entries
-- of the same index, as it used the index this one replaces.
create extension if not exists btree_gin;

alter table work_item_titles add column queue text;

update work_item_titles t set queue = w.queue from work_items w where w.id = t.item_id;

alter table work_item_titles alter column queue set not null;

create index work_item_titles_queue_title_idx on work_item_titles using gin (queue, title gin_trgm_ops);

drop index work_item_titles_trgm_idx;

create or replace function work_items_record_titles() returns trigger
    language plpgsql
as $$
begin
    insert into work_item_titles (item_id, title, queue) select id, title, queue from created;
    return null;
end;
$$;
