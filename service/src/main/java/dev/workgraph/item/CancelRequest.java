package dev.workgraph.item;

import dev.workgraph.input.Text;

/** Body of {@code POST /items/{id}/cancel}; the body and its reason are optional. */
record CancelRequest(@Text(max = 2000) String reason) {
}
