package dev.workgraph.item;

import dev.workgraph.validation.Text;

/** Body of {@code POST /items/{id}/cancel}; the body and its reason are optional. */
record CancelRequest(@Text(max = 2000) String reason) {
}
