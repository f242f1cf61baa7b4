package dev.workgraph.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.workgraph.input.Json;
import dev.workgraph.model.LeaseView;
import dev.workgraph.problem.Problems;
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

	CompletionController(LeaseCommands leases) {
		this.leases = leases;
	}

	@PostMapping("/completions")
	CompletionResults completeAll(@Valid @RequestBody CompletionsRequest request) {
		List<LeaseEndings.Completing> completing = request.completions()
			.stream()
			.map((entry) -> new LeaseEndings.Completing(entry.leaseId(), entry.epoch(),
					Json.textOrNull(entry.result())))
			.toList();
		List<PerRequest<LeaseView>> done = this.leases.completeAll(completing);
		List<CompletionResult> results = new ArrayList<>(done.size());
		for (int i = 0; i < done.size(); i++) {
			PerRequest<LeaseView> answer = done.get(i);
			UUID leaseId = completing.get(i).leaseId();
			if (answer.succeeded()) {
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
