-- The statements of dev.workgraph.fence.FenceKeys, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: SIGNING_KEY
select private_jwk from fence_keys where retired_at is null

-- name: INSERT_SIGNING_KEY_IF_NONE
insert into fence_keys (kid, private_jwk) values (:kid, :privateJwk)
on conflict do nothing

-- name: PUBLISHED_KEYS
select private_jwk from fence_keys order by retired_at desc nulls first, created_at desc
