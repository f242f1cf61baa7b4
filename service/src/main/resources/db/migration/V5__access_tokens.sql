-- Identity and access (docs/adr/0007-access-tokens-and-roles.md).
--
-- A bearer token is a random secret shown once at creation; only its SHA-256 is kept. A
-- high-entropy secret needs no slow hash: nobody can guess a 256-bit preimage, and looking the
-- hash up by equality reveals nothing about the secret it came from.

create table access_tokens (
    id           uuid        primary key,
    name         text        not null,
    role         text        not null,
    worker_id    text,
    secret_hash  bytea       not null,
    created_at   timestamptz not null default now(),
    -- Written at most once a minute per token, so that using a token costs no write per request.
    last_used_at timestamptz,
    revoked_at   timestamptz,

    constraint access_tokens_role_known check (role in ('worker', 'operator', 'admin')),
    constraint access_tokens_name_length check (char_length(name) between 1 and 200),
    constraint access_tokens_worker_id_length check (char_length(worker_id) between 1 and 200),
    -- A worker token acts as exactly one worker; other roles act as none.
    constraint access_tokens_worker_id_iff_worker check ((role = 'worker') = (worker_id is not null)),
    constraint access_tokens_secret_hash_sha256 check (octet_length(secret_hash) = 32)
);

-- Every authenticated request looks its token up here, revoked or not (a revoked token must be
-- refused on the very next request, on every instance).
create unique index access_tokens_secret_hash_idx on access_tokens (secret_hash);

-- Who did it: the name of the token that created or cancelled an item. Null for changes made
-- with access control off, and for items cancelled by the system.
alter table work_items add column created_by text, add column cancelled_by text;
