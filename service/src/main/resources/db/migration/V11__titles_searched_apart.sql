-- The trigram index behind GET /items?q= moves off work_items. An item's status is indexed, so every
-- claim, completion and expiry rewrites the item row with new entries in all of its indexes (never a
-- HOT update), and the GIN index took a dozen or more trigram entries per rewrite into its pending
-- list, flushed in bursts that stalled whichever statement crossed gin_pending_list_limit. Titles
-- never change after creation, so their index lives in a table of its own, written once per item
-- and never touched by the lifecycle.
create table work_item_titles (
    item_id uuid primary key references work_items (id) on delete cascade,
    title   text not null
);

insert into work_item_titles (item_id, title) select id, title from work_items;

create index work_item_titles_trgm_idx on work_item_titles using gin (title gin_trgm_ops);

drop index work_items_title_trgm_idx;

-- Every way items are created (the API, decomposition, bulk SQL) goes through this: statement level
-- with a transition table, so a thousand children cost one extra statement, not a thousand.
create function work_items_record_titles() returns trigger
    language plpgsql
as $$
begin
    insert into work_item_titles (item_id, title) select id, title from created;
    return null;
end;
$$;

create trigger work_items_record_titles
    after insert on work_items
    referencing new table as created
    for each statement
    execute function work_items_record_titles();

-- Titles are immutable: an update that changed one would leave the search index stale.
create function work_items_title_is_immutable() returns trigger
    language plpgsql
as $$
begin
    raise exception 'work_items.title is immutable (item %)', old.id;
end;
$$;

create trigger work_items_title_is_immutable
    before update of title on work_items
    for each row
    when (old.title is distinct from new.title)
    execute function work_items_title_is_immutable();
