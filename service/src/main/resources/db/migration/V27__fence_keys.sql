-- The keys that sign fence tokens (docs/fencing-outside.md): Ed25519 key pairs as JSON Web Keys,
-- shared by every instance. Exactly one key signs at a time (retired_at null); a retired key
-- stays published in /.well-known/jwks.json, so that tokens it signed still verify, until an
-- operator deletes its row. The first instance that finds no signing key creates one; the
-- unique index below lets only one of several instances starting together succeed.
create table fence_keys (
    kid         text        primary key,
    -- The private key: whoever reads this table can sign fence tokens.
    private_jwk text        not null,
    created_at  timestamptz not null default now(),
    retired_at  timestamptz,

    constraint fence_keys_kid_length check (char_length(kid) between 1 and 200),
    constraint fence_keys_retired_after_created check (retired_at is null or retired_at >= created_at)
);

create unique index fence_keys_one_signing on fence_keys ((true)) where retired_at is null;
