-- Each listener records here, every half second, the database time up to which it has acted on
-- every notification (revocations included): the start of its previous round trip, all of whose
-- notifications it had handled before it sent this one. A revoking instance counts a listener as
-- confirmed once that time is past the revocation, whatever its own listener heard; and a test can
-- stall a listener by locking its row.
alter table listener_sessions add column confirmed_through timestamptz;
