package dev.workgraph.client;

import java.util.Objects;
import java.util.UUID;

/**
 * What every lease write presents: the lease id and the epoch of the claim that created
 * it. A {@link Lease} is one; {@link #of(UUID, long)} makes one from stored values.
 */
public interface LeaseRef {

	UUID id();

	long epoch();

	static LeaseRef of(UUID id, long epoch) {
		Objects.requireNonNull(id, "id");
		return new Ref(id, epoch);
	}

	/** A lease id and epoch, nothing else. */
	record Ref(UUID id, long epoch) implements LeaseRef {
	}

}
