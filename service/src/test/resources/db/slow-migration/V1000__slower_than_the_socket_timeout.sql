-- For MigrationsWithoutSocketTimeoutTests: one statement that outlasts the one-second socket timeout
-- the test gives the service's connections, as an index build over millions of items outlasts 30 s.
select pg_sleep(2.5);
