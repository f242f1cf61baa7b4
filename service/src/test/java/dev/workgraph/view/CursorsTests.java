package dev.workgraph.view;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;

import dev.workgraph.problem.FieldError;
import dev.workgraph.problem.InvalidRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Keyset cursors: what a page hands out comes back as the same key, URL-safe and opaque;
 * anything else is a validation error naming {@code cursor}, never a crash.
 */
class CursorsTests {

	private static final UUID ID = UUID.fromString("01890a5d-ac96-7000-8000-00000000abcd");

	@Test
	void anIdCursorRoundTrips() {
		String cursor = Cursors.ofId(ID);
		assertThat(cursor).matches("[A-Za-z0-9_-]+");
		assertThat(Cursors.toId(cursor)).isEqualTo(ID);
	}

	@Test
	void aTimeAndIdCursorRoundTripsToTheNanosecond() {
		Instant time = Instant.parse("2026-11-29T16:08:27.123456789Z");
		Cursors.TimeAndId key = Cursors.toTimeAndId(Cursors.ofTimeAndId(time, ID));
		assertThat(key).isEqualTo(new Cursors.TimeAndId(time, ID));
		Instant beforeEpoch = Instant.parse("1969-12-31T23:59:59.5Z");
		assertThat(Cursors.toTimeAndId(Cursors.ofTimeAndId(beforeEpoch, ID)).time()).isEqualTo(beforeEpoch);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "%%%", "not a cursor", "====", "AAAA" })
	void anythingElseIsRefusedAsACursor(String cursor) {
		assertNotACursor(() -> Cursors.toId(cursor));
		assertNotACursor(() -> Cursors.toTimeAndId(cursor));
		assertNotACursor(() -> Cursors.toEpoch(cursor));
	}

	@Test
	void anEpochCursorRoundTrips() {
		assertThat(Cursors.toEpoch(Cursors.ofEpoch(7))).isEqualTo(7);
		assertThat(Cursors.toEpoch(Cursors.ofEpoch(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
		assertNotACursor(() -> Cursors.toEpoch(Cursors.ofId(ID)));
		assertNotACursor(() -> Cursors.toEpoch(Cursors.ofTimeAndId(Instant.EPOCH, ID)));
		assertNotACursor(() -> Cursors.toId(Cursors.ofEpoch(7)));
	}

	@Test
	void aCursorOfOneKindIsNotACursorOfTheOther() {
		assertNotACursor(() -> Cursors.toTimeAndId(Cursors.ofId(ID)));
		assertNotACursor(() -> Cursors.toId(Cursors.ofTimeAndId(Instant.EPOCH, ID)));
	}

	@Test
	void aTamperedCursorIsRefused() {
		String tampered = Base64.getUrlEncoder()
			.withoutPadding()
			.encodeToString("12.x/".concat(ID.toString()).getBytes(StandardCharsets.UTF_8));
		assertNotACursor(() -> Cursors.toTimeAndId(tampered));
	}

	private static void assertNotACursor(org.assertj.core.api.ThrowableAssert.ThrowingCallable decode) {
		assertThatExceptionOfType(InvalidRequest.class).isThrownBy(decode)
			.satisfies((ex) -> assertThat(ex.errors())
				.containsExactly(new FieldError("cursor", "is not a cursor issued by this service")));
	}

}
