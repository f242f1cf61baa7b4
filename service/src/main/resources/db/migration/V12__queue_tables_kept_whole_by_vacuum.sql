-- VACUUM ends by cutting the empty pages off a table's end, and for that it needs an ACCESS EXCLUSIVE
-- lock. On ready_items and leases, which every claim and every lease end writes, that lock is never
-- free under load: the service's vacuum (every couple of seconds, QueueMaintenance) retried it for up
-- to 5 s at a time, holding a pooled connection, and whenever it got it, every claim and lease ending
-- waited until PostgreSQL noticed them (it looks every 20 ms); on a streaming replica the lock is
-- replayed and cancels queries there. The pages it would give back are filled again within seconds.
-- Freed space is still reused; VACUUM (TRUNCATE) reclaims the rest when the service is quiet.
alter table ready_items set (vacuum_truncate = false);
alter table leases set (vacuum_truncate = false);
