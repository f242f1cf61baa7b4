package dev.workgraph.view;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;

import dev.workgraph.problem.InvalidRequest;

/**
 * Opaque keyset cursors: the sort key of the last entry on a page, base64url-encoded.
 * Callers pass them back unchanged; anything else is refused as a validation error, never
 * a 500.
 */
final class Cursors {

	private Cursors() {
	}

	static String ofId(UUID id) {
		return encode(id.toString());
	}

	static UUID toId(String cursor) {
		try {
			return UUID.fromString(decode(cursor));
		}
		catch (IllegalArgumentException ex) {
			throw notACursor();
		}
	}

	/** A cursor for an item's leases, ordered by epoch. */
	static String ofEpoch(long epoch) {
		return encode("epoch:" + epoch);
	}

	static long toEpoch(String cursor) {
		return toNumber(cursor, "epoch:");
	}

	private static long toNumber(String cursor, String prefix) {
		try {
			String key = decode(cursor);
			if (!key.startsWith(prefix)) {
				throw notACursor();
			}
			return Long.parseLong(key.substring(prefix.length()));
		}
		catch (IllegalArgumentException ex) {
			throw notACursor();
		}
	}

	/** A cursor for an item's checkpoints, newest first by their sequence. */
	static String ofSeq(long seq) {
		return encode("seq:" + seq);
	}

	static long toSeq(String cursor) {
		return toNumber(cursor, "seq:");
	}

	/**
	 * A cursor for lists ordered by a timestamp, newest first, with the id breaking ties.
	 */
	static String ofTimeAndId(Instant time, UUID id) {
		return encode(time.getEpochSecond() + "." + time.getNano() + "/" + id);
	}

	static TimeAndId toTimeAndId(String cursor) {
		try {
			String[] parts = decode(cursor).split("/", 2);
			String[] time = parts[0].split("\\.", 2);
			return new TimeAndId(Instant.ofEpochSecond(Long.parseLong(time[0]), Long.parseLong(time[1])),
					UUID.fromString(parts[1]));
		}
		catch (RuntimeException ex) {
			throw notACursor();
		}
	}

	private static String encode(String key) {
		return Base64.getUrlEncoder().withoutPadding().encodeToString(key.getBytes(StandardCharsets.UTF_8));
	}

	private static String decode(String cursor) {
		return new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
	}

	private static InvalidRequest notACursor() {
		return new InvalidRequest("cursor", "is not a cursor issued by this service");
	}

	record TimeAndId(Instant time, UUID id) {
	}

}
