package dev.workgraph.lease.ending;

import java.util.List;
import java.util.UUID;

import dev.workgraph.validation.CompactJson;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import tools.jackson.databind.JsonNode;

/**
 * Body of {@code POST /completions}: 1–500 entries, each a lease, its epoch and any JSON
 * result up to 64 KiB (as {@link CompleteRequest}).
 */
record CompletionsRequest(@NotNull @Size(min = 1, max = 500,
		message = "must list between 1 and 500 completions") List<@NotNull @Valid Entry> completions) {

	record Entry(@NotNull UUID leaseId, @NotNull Long epoch, @CompactJson(objectOnly = false) JsonNode result) {
	}

}
