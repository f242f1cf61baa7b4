package dev.workgraph.access;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What the token memory may answer, and when it must not. */
class TokenMemoryTests {

	private final TokenMemory memory = new TokenMemory();

	private final Caller alice = new Caller(UUID.randomUUID(), "alice", Role.WORKER, "alice");

	private final Caller bob = new Caller(UUID.randomUUID(), "bob", Role.OPERATOR, null);

	@Test
	void remembersNothingUntilItsListenerListens() {
		this.memory.remember("a", this.alice, this.memory.generation());
		assertThat(this.memory.recall("a")).isNull();
		this.memory.listening();
		this.memory.remember("a", this.alice, this.memory.generation());
		assertThat(this.memory.recall("a")).isEqualTo(this.alice);
	}

	@Test
	void forgetsOnlyTheRevokedToken() {
		this.memory.listening();
		this.memory.remember("a", this.alice, this.memory.generation());
		this.memory.remember("b", this.bob, this.memory.generation());
		this.memory.revoked(this.alice.tokenId().toString());
		assertThat(this.memory.recall("a")).isNull();
		assertThat(this.memory.recall("b")).isEqualTo(this.bob);
	}

	@Test
	void aReadThatRacedARevocationIsNotRemembered() {
		this.memory.listening();
		long before = this.memory.generation();
		// The read saw the token unrevoked; the revocation was heard before it finished.
		this.memory.revoked(this.alice.tokenId().toString());
		this.memory.remember("a", this.alice, before);
		assertThat(this.memory.recall("a")).isNull();
		// A read that began after the revocation was heard may be remembered.
		this.memory.remember("a", this.alice, this.memory.generation());
		assertThat(this.memory.recall("a")).isEqualTo(this.alice);
	}

	@Test
	void losingTheListenerForgetsEverythingAndTrustsNothingUntilItIsBack() {
		this.memory.listening();
		this.memory.remember("a", this.alice, this.memory.generation());
		long before = this.memory.generation();
		this.memory.notListening();
		assertThat(this.memory.recall("a")).isNull();
		this.memory.remember("b", this.bob, this.memory.generation());
		assertThat(this.memory.recall("b")).isNull();
		this.memory.listening();
		this.memory.remember("a", this.alice, before);
		assertThat(this.memory.recall("a")).as("read before the listener was lost").isNull();
	}

	@Test
	void everyTokenOrAnUnreadablePayloadForgetsEverything() {
		for (String payload : new String[] { "*", "not-a-token-id" }) {
			this.memory.listening();
			this.memory.remember("a", this.alice, this.memory.generation());
			this.memory.remember("b", this.bob, this.memory.generation());
			this.memory.revoked(payload);
			assertThat(this.memory.recall("a")).as(payload).isNull();
			assertThat(this.memory.recall("b")).as(payload).isNull();
		}
	}

}
