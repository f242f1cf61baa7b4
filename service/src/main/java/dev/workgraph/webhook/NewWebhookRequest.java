package dev.workgraph.webhook;

import java.util.List;

import dev.workgraph.validation.Text;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * Body of {@code POST /webhooks}: the target, the change types it is sent (all when
 * absent or empty) and, optionally, its Standard Webhooks secret ({@code whsec_…}; one is
 * generated when absent).
 */
record NewWebhookRequest(@NotNull @Text(min = 1, max = 2000) String url,
		@Size(max = 50, message = "must list at most 50 types") List<@NotNull String> types,
		@Text(min = 1, max = 200) String secret) {
}
