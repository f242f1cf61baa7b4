package dev.workgraph.item;

import java.util.UUID;

import jakarta.validation.constraints.NotNull;

/** Body of {@code POST /items/{id}/dependencies}. */
record AddDependencyRequest(@NotNull UUID dependsOn) {
}
