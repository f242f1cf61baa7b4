package dev.workgraph.wait;

import java.util.Optional;
import java.util.UUID;

import dev.workgraph.model.Rows;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Writes and reads {@code events}. */
@Repository
class Events {

	/**
	 * An event as a wait keeps it when matched; times as RFC 3339 in UTC, whatever the
	 * session's time zone.
	 */
	static final String AS_MATCHED = """
			jsonb_build_object('eventId', e.id, 'id', e.client_id, 'name', e.name, 'key', e.key,
			    'payload', e.payload,
			    'receivedAt', to_char(e.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))""";

	/**
	 * Records the event unless one with the sender's id exists (then nothing, and the
	 * caller reads that one); returns it as a matched wait keeps it.
	 */
	static final String INSERT_EVENT = """
			insert into events as e (id, client_id, name, key, payload)
			values (:id, :clientId, :name, :key, coalesce(:payload::jsonb, '{}'))
			on conflict (client_id) where client_id is not null do nothing
			returning %s::text as matched_event
			""".formatted(AS_MATCHED);

	/** The event a sender's id named first, and how many waits it matched. */
	static final String EVENT_BY_CLIENT_ID = """
			select id, matched_waits from events where client_id = :clientId
			""";

	static final String COUNT_MATCHED = """
			update events set matched_waits = :matched where id = :id
			""";

	/**
	 * The latest event of this name and key still within the retention, as a matched wait
	 * keeps it.
	 */
	static final String LATEST_RETAINED = """
			select %s::text as matched_event
			from events e
			where e.name = :name and e.key = :key
			    and e.received_at > now() - make_interval(secs => :retentionSeconds)
			order by e.received_at desc, e.id desc
			limit 1
			""".formatted(AS_MATCHED);

	/** The oldest events past the retention, a batch at a time. */
	static final String DELETE_EXPIRED = """
			delete from events
			where id = any(array(
			    select id from events
			    where received_at <= now() - make_interval(secs => :retentionSeconds)
			    order by received_at
			    limit :limit))
			""";

	private final JdbcClient jdbc;

	Events(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	Optional<String> insert(UUID id, String clientId, String name, String key, String payload) {
		return this.jdbc.sql(INSERT_EVENT)
			.param("id", id)
			.param("clientId", clientId)
			.param("name", name)
			.param("key", key)
			.param("payload", payload)
			.query(String.class)
			.optional();
	}

	Optional<Recorded> byClientId(String clientId) {
		return this.jdbc.sql(EVENT_BY_CLIENT_ID)
			.param("clientId", clientId)
			.query((rs, n) -> new Recorded(Rows.uuid(rs, "id"), rs.getInt("matched_waits")))
			.optional();
	}

	void countMatched(UUID id, int matched) {
		this.jdbc.sql(COUNT_MATCHED).param("id", id).param("matched", matched).update();
	}

	Optional<String> latestRetained(String name, String key, long retentionSeconds) {
		return this.jdbc.sql(LATEST_RETAINED)
			.param("name", name)
			.param("key", key)
			.param("retentionSeconds", retentionSeconds)
			.query(String.class)
			.optional();
	}

	int deleteExpired(long retentionSeconds, int limit) {
		return this.jdbc.sql(DELETE_EXPIRED).param("retentionSeconds", retentionSeconds).param("limit", limit).update();
	}

	/** An event recorded earlier: its id and the waits it matched when it arrived. */
	record Recorded(UUID eventId, int matchedWaits) {
	}

}
