-- Every instance remembers the tokens it has checked (for a minute at most) and must forget one
-- the moment it is revoked, however that happens: through DELETE /tokens/{id} (which also waits
-- for every instance to confirm), or by SQL. The update trigger fires only when a column other
-- than last_used_at is set, so recording a use sends nothing. Tests and operators that empty the
-- table with TRUNCATE make every instance forget everything ('*'); that trigger fires even for a
-- session acting as a replication apply, as the tests' clean-up does.
create function access_tokens_changed_notify() returns trigger language plpgsql as $$
begin
    if tg_op = 'TRUNCATE' then
        perform pg_notify('work_graph_token_revoked', '*');
    else
        perform pg_notify('work_graph_token_revoked', old.id::text);
    end if;
    return null;
end;
$$;

create trigger access_tokens_changed_notify
    after update of revoked_at, role, worker_id, secret_hash or delete on access_tokens
    for each row execute function access_tokens_changed_notify();

create trigger access_tokens_truncated_notify
    after truncate on access_tokens
    for each statement execute function access_tokens_changed_notify();

alter table access_tokens enable always trigger access_tokens_truncated_notify;
