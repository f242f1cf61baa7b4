package dev.workgraph.audit;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.stereotype.Component;

/** {@code GET /actuator/consistency}: runs the {@link ConsistencyAudit} on demand. */
@Component
@Endpoint(id = "consistency")
class ConsistencyEndpoint {

	private final ConsistencyAudit audit;

	ConsistencyEndpoint(ConsistencyAudit audit) {
		this.audit = audit;
	}

	@ReadOperation
	ConsistencyAudit.Report consistency() {
		return this.audit.run();
	}

}
