-- Worker tokens that may also create items (docs/adr: "Worker tokens that create items"). Off unless
-- an admin grants it when issuing the token: by default only operators create items.
alter table access_tokens add column create_items boolean not null default false;

alter table access_tokens
    add constraint access_tokens_create_items_only_for_workers check (not create_items or role = 'worker');
