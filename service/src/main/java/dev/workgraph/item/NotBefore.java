package dev.workgraph.item;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.UUID;

import dev.workgraph.problem.InvalidRequest;

/**
 * A new {@code notBefore} for an item, set by {@link Readiness} with its status: an
 * instant ({@code PATCH /items/{id}}), a delay from PostgreSQL's now (a back-off, a
 * release's {@code retryAfterSeconds}), or neither (cleared). A time that has come blocks
 * nothing.
 */
public record NotBefore(UUID itemId, Instant at, Duration delay) {

	public static NotBefore at(UUID itemId, Instant at) {
		return new NotBefore(itemId, at, null);
	}

	public static NotBefore after(UUID itemId, Duration delay) {
		return new NotBefore(itemId, null, delay);
	}

	/** The earliest notBefore accepted: the Unix epoch. */
	public static final Instant EARLIEST = Instant.parse("1970-01-01T00:00:00Z");

	/**
	 * The latest notBefore accepted: the last instant RFC 3339's four-digit years name.
	 */
	public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999Z");

	/**
	 * A request's notBefore (RFC 3339, any offset; null when absent), refused with 422 on
	 * {@code field} when it is not one or lies outside 1970–9999. A time in the past is
	 * accepted: the item is due at once.
	 */
	public static Instant parse(String field, String text) {
		if (text == null) {
			return null;
		}
		Instant instant;
		try {
			instant = OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
		}
		catch (DateTimeParseException ex) {
			throw new InvalidRequest(field, "must be an RFC 3339 timestamp, e.g. 2030-01-01T00:00:00Z");
		}
		if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
			throw new InvalidRequest(field, "must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z");
		}
		return instant;
	}

}
