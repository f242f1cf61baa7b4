-- The sessions on which the instances listen for token revocations (and ready items). A revocation
-- waits until each of them has confirmed that its instance forgot the token, so they must be found
-- whatever the configuration says: not by application name (a JDBC URL parameter overrides the one
-- the listener sets), but by the backend pid and start time that each listener registers here for
-- itself. A row whose session is gone (its pid no longer runs, or runs a newer session) is ignored
-- and removed by the next listener that registers.
create table listener_sessions (
    pid int primary key,
    backend_start timestamptz not null,
    registered_at timestamptz not null default now()
);
