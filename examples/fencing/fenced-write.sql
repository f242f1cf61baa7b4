-- A table that refuses writes from stale holders (docs/fencing-outside.md). The writer verifies the
-- fence token first (FenceCheck.java without --state prints its item and epoch); the database
-- then keeps the highest epoch seen per item and writes only when the token's epoch is not lower,
-- in one statement, so two writers racing cannot both pass.
--
--   psql -v item_id=<sub> -v epoch=<epoch> -v body='…' -f fenced-write.sql
--
-- Prints 1 when written, 0 when refused (a higher epoch was seen).

set client_min_messages = warning;

create table if not exists item_fences (
    item_id uuid   primary key,
    epoch   bigint not null
);

create table if not exists reports (
    item_id    uuid        not null,
    epoch      bigint      not null,
    body       text        not null,
    written_at timestamptz not null default now()
);

with fence as (
    insert into item_fences as f (item_id, epoch) values (:'item_id', :'epoch')
    on conflict (item_id) do update set epoch = excluded.epoch
        where f.epoch <= excluded.epoch
    returning f.item_id, f.epoch
), written as (
    insert into reports (item_id, epoch, body)
    select item_id, epoch, :'body' from fence
    returning 1
)
select count(*) from written;
