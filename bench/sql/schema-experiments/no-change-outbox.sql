-- The change outbox switched off, for an A/B of what it costs (issue: "the lifecycle within 10 %
-- with the outbox on"): every trigger whose function writes change_pending is dropped, so no
-- transaction records a change. Run the side with --workgraph.outbox.sequencer-interval=0 too,
-- so that no sequencer passes run over the empty table:
--   SQL_B=bench/sql/schema-experiments/no-change-outbox.sql \
--   ARGS_B=--workgraph.outbox.sequencer-interval=0 bench/ab.sh
do $$
declare
    outbox_trigger record;
begin
    for outbox_trigger in
        select t.tgname, t.tgrelid::regclass as rel
        from pg_trigger t join pg_proc p on p.oid = t.tgfoid
        where not t.tgisinternal and p.prosrc ilike '%change_pending%'
    loop
        execute format('drop trigger %I on %s', outbox_trigger.tgname, outbox_trigger.rel);
    end loop;
end;
$$;
