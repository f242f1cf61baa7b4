package dev.workgraph.client;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Reads an HTTP {@code Retry-After} header (RFC 9110 §10.2.3): a number of seconds, or an
 * HTTP date. A date is the only place where the client compares the service's time with
 * its own clock, because that is what the header means; a date in the past means "now".
 */
final class RetryAfter {

	private RetryAfter() {
	}

	/** The delay the header asks for, or null when it is absent or unreadable. */
	static Duration parse(String header, Instant now) {
		if (header == null || header.isBlank()) {
			return null;
		}
		String value = header.strip();
		if (value.chars().allMatch(Character::isDigit)) {
			try {
				return Duration.ofSeconds(Long.parseLong(value));
			}
			catch (NumberFormatException ex) {
				return null; // more digits than a long holds
			}
		}
		try {
			Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
			Duration delay = Duration.between(now, at);
			return delay.isNegative() ? Duration.ZERO : delay;
		}
		catch (DateTimeParseException ex) {
			return null;
		}
	}

}
