package dev.workgraph.lease.ending;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.workgraph.batching.PerRequest;
import dev.workgraph.lease.LeaseHolders;
import dev.workgraph.lease.LeaseTraces;
import dev.workgraph.problem.Problems;
import dev.workgraph.problem.RequestRejected;
import dev.workgraph.validation.Json;
import dev.workgraph.view.LeaseView;
import jakarta.validation.Valid;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /completions}: many completions in one request, for workers that process
 * many small items. Each entry is fenced on its own and answered with what {@code POST
 * /leases/{id}/complete} would have answered (200 and the lease, or the problem), in
 * request order; all that succeed are committed together.
 */
@RestController
class CompletionController {

	private final LeaseCommands leases;

	private final LeaseHolders holders;

	private final LeaseTraces traces;

	CompletionController(LeaseCommands leases, LeaseHolders holders, LeaseTraces traces) {
		this.leases = leases;
		this.traces = traces;
		this.holders = holders;
	}

	@PostMapping("/completions")
	CompletionResults completeAll(@Valid @RequestBody CompletionsRequest request) {
		List<LeaseEndings.Completing> completing = request.completions()
			.stream()
			.map((entry) -> new LeaseEndings.Completing(entry.leaseId(), entry.epoch(),
					Json.textOrNull(entry.result())))
			.toList();
		// A worker token acts only on its own leases: another worker's lease (or an
		// unknown one) is that entry's 403 (404), checked before fencing; the others go
		// on.
		List<PerRequest<LeaseView>> done = new ArrayList<>(Collections.nCopies(completing.size(), null));
		List<Integer> allowed = new ArrayList<>();
		for (int i = 0; i < completing.size(); i++) {
			try {
				this.holders.requireCallerHolds(completing.get(i).leaseId());
				allowed.add(i);
			}
			catch (RequestRejected ex) {
				done.set(i, PerRequest.failed(ex));
			}
		}
		List<PerRequest<LeaseView>> completed = this.leases.completeAll(allowed.stream().map(completing::get).toList());
		for (int k = 0; k < allowed.size(); k++) {
			done.set(allowed.get(k), completed.get(k));
		}
		List<CompletionResult> results = new ArrayList<>(done.size());
		for (int i = 0; i < done.size(); i++) {
			PerRequest<LeaseView> answer = done.get(i);
			UUID leaseId = completing.get(i).leaseId();
			if (answer.succeeded()) {
				this.holders.ended(leaseId);
				this.traces.granted(LeaseTraces.BATCH_COMPLETION, answer.value());
				results.add(new CompletionResult(leaseId, 200, answer.value(), null));
			}
			else {
				Map<String, Object> problem = Problems.of(answer.failure());
				results.add(new CompletionResult(leaseId, (Integer) problem.get("status"), null, problem));
			}
		}
		return new CompletionResults(results);
	}

	record CompletionResults(List<CompletionResult> results) {
	}

	/** One entry's answer: {@code lease} when it succeeded, else {@code problem}. */
	@JsonInclude(JsonInclude.Include.NON_NULL)
	record CompletionResult(UUID leaseId, int status, LeaseView lease, Map<String, Object> problem) {
	}

}
