package dev.workgraph.item;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code GET /items}: filters and keyset pagination (docs/http-api.md, "List items"). */
class ItemListingTests extends GraphTest {

	@Test
	void pagesVisitEveryItemExactlyOnceWhateverTheLimit() {
		Set<String> created = createMany(237, "page");
		for (Integer limit : new Integer[] { 1, 7, 50, 100, 236, 237, 500, null }) {
			if (limit != null && limit == 1) {
				// One item per page costs a request per item: check only the first pages.
				List<String> firstPages = pageThrough("/items?limit=1", 5);
				assertThat(firstPages).hasSize(5).doesNotHaveDuplicates();
				continue;
			}
			String path = (limit != null) ? "/items?limit=" + limit : "/items";
			List<String> seen = pageThrough(path, Integer.MAX_VALUE);
			assertThat(seen).as("limit %s", limit).doesNotHaveDuplicates();
			assertThat(new HashSet<>(seen)).as("limit %s", limit).isEqualTo(created);
		}
	}

	@Test
	void pageSizeIsTheLimitAndTheLastPageHasNoCursor() {
		createMany(120, "size");
		JsonNode first = list("/items");
		assertThat(first.path("items").size()).as("default limit").isEqualTo(50);
		assertThat(first.path("nextCursor").isString()).isTrue();
		JsonNode exact = list("/items?limit=120");
		assertThat(exact.path("items").size()).isEqualTo(120);
		assertThat(exact.path("nextCursor").isNull()).as("nothing after the last page").isTrue();
		JsonNode all = list("/items?limit=500");
		assertThat(all.path("items").size()).isEqualTo(120);
		assertThat(all.path("nextCursor").isNull()).isTrue();
		JsonNode page = list("/items?limit=7");
		assertThat(page.path("items").size()).isEqualTo(7);
		// Listed items are full item views.
		JsonNode item = page.path("items").get(0);
		assertThat(item.has("blockers")).isTrue();
		assertThat(item.has("dependsOn")).isTrue();
		assertThat(item.has("children")).isTrue();
		assertThat(item.has("lease")).isTrue();
		assertThat(item.has("attentionRequests")).isTrue();
	}

	@Test
	void pagingWhileItemsAreCreatedStillSeesEveryEarlierItemExactlyOnce() {
		Set<String> before = createMany(150, "before");
		AtomicBoolean paging = new AtomicBoolean(true);
		List<List<String>> results = Concurrently.run(List.<Callable<List<String>>>of(() -> {
			try {
				List<String> seen = new ArrayList<>();
				for (int round = 0; round < 3; round++) {
					seen.addAll(pageThrough("/items?limit=9", Integer.MAX_VALUE));
					seen.add("--");
				}
				return seen;
			}
			finally {
				paging.set(false);
			}
		}, () -> {
			List<String> created = new ArrayList<>();
			while (paging.get() && created.size() < 400) {
				created.add(createItem("during" + created.size()).toString());
			}
			return created;
		}));
		List<String> seen = results.get(0);
		Set<String> createdDuring = new HashSet<>(results.get(1));
		assertThat(createdDuring).as("items were created while paging").isNotEmpty();
		List<List<String>> rounds = new ArrayList<>();
		List<String> current = new ArrayList<>();
		for (String id : seen) {
			if (id.equals("--")) {
				rounds.add(current);
				current = new ArrayList<>();
			}
			else {
				current.add(id);
			}
		}
		for (List<String> round : rounds) {
			assertThat(round).doesNotHaveDuplicates();
			assertThat(round).containsAll(before);
			Set<String> extra = new HashSet<>(round);
			extra.removeAll(before);
			assertThat(createdDuring).containsAll(extra);
		}
	}

	@Test
	void filtersByStatusQueueAndParent() {
		UUID parent = createItem("parent", "queue", "plans");
		UUID readyChild = createItem("ready child", "parentId", parent.toString(), "queue", "work");
		UUID otherParent = createItem("other parent");
		UUID otherChild = createItem("other child", "parentId", otherParent.toString(), "queue", "work");
		UUID blocked = createItem("blocked", "queue", "work", "dependsOn", List.of(readyChild.toString()));
		UUID cancelled = createItem("cancelled", "queue", "work");
		cancel(cancelled, null);
		assertThat(listed("/items?status=blocked")).containsExactlyInAnyOrder(parent.toString(), otherParent.toString(),
				blocked.toString());
		assertThat(listed("/items?status=ready")).containsExactlyInAnyOrder(readyChild.toString(),
				otherChild.toString());
		assertThat(listed("/items?status=cancelled")).containsExactly(cancelled.toString());
		assertThat(listed("/items?status=leased")).isEmpty();
		assertThat(listed("/items?queue=work")).containsExactlyInAnyOrder(readyChild.toString(), otherChild.toString(),
				blocked.toString(), cancelled.toString());
		assertThat(listed("/items?queue=plans")).containsExactly(parent.toString());
		assertThat(listed("/items?queue=nothing-here")).isEmpty();
		assertThat(listed("/items?parentId=" + parent)).containsExactly(readyChild.toString());
		assertThat(listed("/items?parentId=" + UUID.randomUUID())).isEmpty();
		assertThat(listed("/items?queue=work&status=ready&parentId=" + otherParent))
			.containsExactly(otherChild.toString());
		assertThat(listed("/items?queue=work&status=blocked")).containsExactly(blocked.toString());
	}

	/**
	 * Each status is listed from where that state lives (ready_items, leases, completed
	 * history, parked_items), merged in id order: every combination of statuses, with and
	 * without a queue, paged small and large, must list exactly what the rows' own status
	 * says, in id order.
	 */
	@Test
	void everyCombinationOfStatusesListsWhatTheItemsSay() {
		for (String queue : List.of("alpha", "beta")) {
			UUID anchor = createItem(queue + " anchor", "queue", queue);
			List<UUID> toCancel = new ArrayList<>();
			for (int i = 0; i < 14; i++) {
				switch (i % 7) {
					case 0, 4 -> createItem(queue + " done " + i, "queue", queue, "priority", 100);
					case 1 -> createItem(queue + " held " + i, "queue", queue, "priority", 50);
					case 2 ->
						createItem(queue + " waits " + i, "queue", queue, "dependsOn", List.of(anchor.toString()));
					case 3 -> toCancel.add(createItem(queue + " dropped " + i, "queue", queue));
					case 5 -> toCancel.add(createItem(queue + " dropped while blocked " + i, "queue", queue,
							"dependsOn", List.of(anchor.toString())));
					default -> {
						UUID unblocked = createItem(queue + " unblocked " + i, "queue", queue, "dependsOn",
								List.of(anchor.toString()));
						assertThat(removeDependency(unblocked, anchor).status()).isEqualTo(204);
					}
				}
			}
			toCancel.forEach((id) -> assertThat(cancel(id, null).status()).isEqualTo(200));
			for (int i = 0; i < 4; i++) {
				assertThat(complete(claimFrom(queue)).status()).isEqualTo(200);
			}
			claimFrom(queue);
			claimFrom(queue);
		}
		assertThat(count("select count(distinct status) from work_items")).isEqualTo(5);
		List<String> statuses = List.of("blocked", "ready", "leased", "completed", "cancelled");
		for (int subset = 1; subset < (1 << statuses.size()); subset++) {
			List<String> asked = new ArrayList<>();
			for (int s = 0; s < statuses.size(); s++) {
				if ((subset & (1 << s)) != 0) {
					asked.add(statuses.get(s));
				}
			}
			for (String queue : Arrays.asList(null, "alpha", "beta", "empty")) {
				List<String> expected = this.jdbc
					.sql("select id::text from work_items where status = any(:statuses::text[])"
							+ " and (:queue::text is null or queue = :queue) order by id")
					.param("statuses", asked.toArray(new String[0]))
					.param("queue", queue)
					.query(String.class)
					.list();
				String path = "/items?status=" + String.join(",", asked) + ((queue != null) ? "&queue=" + queue : "");
				for (int limit : new int[] { 2, 50 }) {
					assertThat(pageThrough(path + "&limit=" + limit, Integer.MAX_VALUE)).as("%s limit %d", path, limit)
						.isEqualTo(expected);
				}
				assertThat(pageThrough(path + "&order=newest&limit=3", Integer.MAX_VALUE)).as("%s newest first", path)
					.isEqualTo(expected.reversed());
			}
		}
	}

	private JsonNode claimFrom(String queue) {
		return claim(Map.of("workerId", "lister", "queues", List.of(queue)));
	}

	@Test
	void filteredPagesAlsoVisitEachMatchExactlyOnce() {
		UUID parent = createItem("parent");
		Set<String> children = new HashSet<>();
		for (int i = 0; i < 23; i++) {
			children.add(createItem("child" + i, "parentId", parent.toString()).toString());
			createItem("unrelated" + i);
		}
		List<String> seen = pageThrough("/items?parentId=" + parent + "&limit=4", Integer.MAX_VALUE);
		assertThat(seen).doesNotHaveDuplicates();
		assertThat(new HashSet<>(seen)).isEqualTo(children);
		// Newest first: the same items in the opposite order (ids sort as they were
		// made).
		List<String> newestFirst = children.stream().sorted(java.util.Comparator.reverseOrder()).toList();
		assertThat(pageThrough("/items?parentId=" + parent + "&limit=4&order=newest", Integer.MAX_VALUE))
			.isEqualTo(newestFirst);
		assertThat(pageThrough("/items?q=child&limit=4&order=newest", Integer.MAX_VALUE)).isEqualTo(newestFirst);
		assertThat(pageThrough("/items?q=child&limit=4&order=oldest", Integer.MAX_VALUE))
			.isEqualTo(newestFirst.reversed());
	}

	@Test
	void badQueryParametersAreValidationErrors() {
		createItem("first");
		createItem("second");
		String cursor = list("/items?limit=1").path("nextCursor").asString();
		assertThat(cursor).isNotBlank();
		for (String query : List.of("limit=0", "limit=501", "limit=-1", "limit=abc", "limit=1.5", "limit=99999999999",
				"status=open", "status=", "cursor=not-a-cursor", "cursor=" + cursor + "x", "cursor=AAAA",
				"parentId=not-a-uuid", "order=sideways", "order=", "queue=UPPER", "queue=",
				"queue=" + "q".repeat(101))) {
			Api.Response response = this.api.get("/items?" + query);
			assertThat(response.status()).as(query + " -> " + response).isEqualTo(422);
			assertThat(response.code()).isEqualTo("validation_failed");
			assertThat(response.body().path("errors").get(0).path("field").asString())
				.isEqualTo(query.substring(0, query.indexOf('=')));
		}
	}

	private Set<String> createMany(int count, String prefix) {
		int threads = 4;
		List<Callable<List<String>>> creators = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int first = t;
			creators.add(() -> {
				List<String> ids = new ArrayList<>();
				for (int i = first; i < count; i += threads) {
					ids.add(createItem(prefix + i).toString());
				}
				return ids;
			});
		}
		Set<String> created = new HashSet<>();
		Concurrently.run(creators).forEach(created::addAll);
		assertThat(created).hasSize(count);
		return created;
	}

	/**
	 * Follows nextCursor from the given first page; returns the ids in the order seen.
	 */
	private List<String> pageThrough(String firstPage, int maxPages) {
		List<String> seen = new ArrayList<>();
		String path = firstPage;
		String separator = firstPage.contains("?") ? "&" : "?";
		for (int pages = 0; pages < maxPages; pages++) {
			JsonNode page = list(path);
			seen.addAll(ids(page.path("items")));
			JsonNode next = page.path("nextCursor");
			if (next.isNull()) {
				return seen;
			}
			assertThat(page.path("items").size()).as("a page with a next cursor is full").isPositive();
			path = firstPage + separator + "cursor=" + next.asString();
		}
		return seen;
	}

	private JsonNode list(String path) {
		Api.Response response = this.api.get(path);
		assertThat(response.status()).as(response.toString()).isEqualTo(200);
		return response.body();
	}

	private List<String> listed(String path) {
		return ids(list(path).path("items"));
	}

}
