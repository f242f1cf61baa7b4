package dev.workgraph.lease.ending;

import java.util.List;

import dev.workgraph.item.QueueNames;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * {@code claimNext} of {@code POST /leases/{id}/complete}: a claim made once the
 * completion is committed, by the rules of {@code POST /claims} for {@code queues} and
 * {@code leaseSeconds}. It names no worker (it claims for the worker that held the
 * completed lease) and never waits: a worker that processes item after item saves a round
 * trip per item, and one that finds nothing ready claims, or waits, as usual.
 */
record NextClaim(@Size(min = 1, max = 100,
		message = "must list between 1 and 100 queues") List<@NotNull @Pattern(regexp = QueueNames.PATTERN,
				message = QueueNames.MESSAGE) String> queues,
		Long leaseSeconds) {
}
