package dev.workgraph.tracing;

import java.util.UUID;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;

/** Tracing on: the current span is tagged, child spans are made for extra leases. */
final class TracedLeaseSpans implements LeaseSpans {

	private final Tracer tracer;

	TracedLeaseSpans(Tracer tracer) {
		this.tracer = tracer;
	}

	@Override
	public void acting(UUID itemId, UUID leaseId, long epoch, String workerId) {
		Span span = this.tracer.currentSpan();
		if (span != null && !span.isNoop()) {
			tag(span, itemId, leaseId, epoch, workerId);
		}
	}

	@Override
	public void granted(String what, UUID itemId, UUID leaseId, long epoch, String workerId) {
		Span current = this.tracer.currentSpan();
		if (current == null || current.isNoop()) {
			return; // not sampled: no child either
		}
		Span child = this.tracer.nextSpan(current).name(what);
		tag(child.start(), itemId, leaseId, epoch, workerId).end();
	}

	private static Span tag(Span span, UUID itemId, UUID leaseId, long epoch, String workerId) {
		span.tag(ITEM, String.valueOf(itemId));
		span.tag(LEASE, String.valueOf(leaseId));
		span.tag(EPOCH, epoch);
		if (workerId != null) {
			span.tag(WORKER, workerId);
		}
		return span;
	}

}
