package dev.workgraph.lease.ending;

import java.util.List;

import dev.workgraph.validation.Text;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/** Body of {@code POST /leases/{id}/decompose}: 1–1,000 children with unique keys. */
record DecomposeRequest(@NotNull Long epoch,
		@NotNull @Size(min = 1, max = 1000,
				message = "must list between 1 and 1000 children") List<@NotNull @Valid ChildSpec> children,
		@Text(max = 2000) String reason) {
}
