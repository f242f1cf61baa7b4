package dev.workgraph.view;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import dev.workgraph.audit.ConsistencyAudit;
import dev.workgraph.model.ItemStatus;
import dev.workgraph.testing.Database;
import dev.workgraph.testing.IntegrationTest;
import dev.workgraph.testing.QueryPlans;
import dev.workgraph.view.ItemViews.ItemFilter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A page of {@code GET /items} by status reads about a page from each source, and a title
 * search a fixed walk and its matches, however many items the graph holds: the sources
 * are each limited to the page before they are merged (without that, the planner sorted a
 * whole source). Checked under EXPLAIN ANALYZE with custom plans and with the generic
 * plan a pooled connection may settle on.
 *
 * <p>
 * The graph is built once for the class (building and auditing it for each test took most
 * of the suite's slowest minutes): every test only reads it (the plans are explained in
 * transactions rolled back), except that the tests of a large queue add that queue, once,
 * after the tests that must not see it ({@link Order}). The consistency audit runs after
 * the last test, over the graph every test saw.
 */
@IntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ItemListingPlanTests {

	/**
	 * Enough items that reading the whole table costs the planner more than a page of key
	 * probes (with 20,000 it rightly chose to read all of a table that small).
	 */
	private static final int ITEMS = 100_000;

	private static final int PAGE = 51;

	private static final String BIG_QUEUE = "big";

	/** Several sources of a page each read about a page, and the items by key. */
	private static final long BOUND = 6L * PAGE;

	/**
	 * Leased items of a queue are found among all active leases (no index of
	 * {@code leases} has the queue: it would cost every grant an entry), as many as
	 * workers hold, never the graph's history.
	 */
	private static final long LEASES = ITEMS / 20;

	/**
	 * After the tests that must not see the large queue (those are of the default order).
	 */
	private static final int WITH_THE_LARGE_QUEUE = Order.DEFAULT + 1;

	@Autowired
	private PlatformTransactionManager transactionManager;

	@Autowired
	private ItemViews itemViews;

	@Autowired
	private ConsistencyAudit audit;

	/** Without the service's query timeout, as ServiceTest's: the fixture is large. */
	private JdbcClient jdbc;

	private boolean largeQueueAdded;

	@Autowired
	void useDatabase(DataSource dataSource) {
		this.jdbc = JdbcClient.create(dataSource);
	}

	/**
	 * Of every 20 items in ten queues: 13 completed (with their completed lease), 2
	 * ready, 2 blocked behind a ready gate, 1 leased, 2 cancelled; consistent for the
	 * audit.
	 */
	@BeforeAll
	void aGraphOfAHundredThousand() {
		Database.clean(this.jdbc);
		this.jdbc
			.sql("""
					insert into work_items (id, title, queue, status, epoch, unmet_dependencies, ready_since, closed_at)
					select id, 'item ' || n, queue, status, case when status in ('completed', 'leased') then 1 else 0 end,
					    case when status = 'blocked' then 1 else 0 end, case when status = 'ready' then now() end,
					    case when status in ('completed', 'cancelled') then now() end
					from (select n, gen_random_uuid() as id, 'q' || n % 10 as queue,
					        case when n % 20 < 13 then 'completed' when n % 20 < 15 then 'ready'
					             when n % 20 < 17 then 'blocked' when n % 20 = 17 then 'leased' else 'cancelled' end as status
					    from generate_series(1, :items) n) s
					""")
			.param("items", ITEMS)
			.update();
		this.jdbc.sql("""
				insert into work_items (id, title, queue, status, ready_since)
				values ('00000000-0000-7000-8000-000000000000', 'gate', 'gate', 'ready', now())
				""").update();
		this.jdbc.sql("""
				insert into ready_items (item_id, queue, priority, ready_since)
				select id, queue, priority, ready_since from work_items where status = 'ready'
				""").update();
		this.jdbc.sql("""
				insert into dependencies (item_id, depends_on_id)
				select id, '00000000-0000-7000-8000-000000000000' from work_items where status = 'blocked'
				""").update();
		this.jdbc.sql("""
				insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
				select gen_random_uuid(), id, 'w', 1, now(), now() + interval '1 hour', queue
				from work_items where status = 'leased'
				""").update();
		this.jdbc
			.sql("""
					insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, expires_at, ended_at, outcome)
					select gen_random_uuid(), id, 'w', 1, now(), now() + interval '1 hour', now(), 'completed'
					from work_items where status = 'completed'
					""")
			.update();
		this.jdbc.sql("analyze").update();
	}

	@AfterAll
	void graphIsConsistent() {
		assertThat(this.audit.run().inconsistencies()).as("consistency audit").isEmpty();
	}

	@Test
	void eachStatusAloneReadsAPage() {
		for (ItemStatus status : ItemStatus.values()) {
			for (String queue : Arrays.asList(null, "q3")) {
				assertReadsAboutAPage(new ItemFilter(EnumSet.of(status), queue, null, null));
			}
		}
	}

	@Test
	void severalStatusesMergedReadAPageFromEach() {
		Set<ItemStatus> open = EnumSet.of(ItemStatus.READY, ItemStatus.LEASED, ItemStatus.BLOCKED);
		Set<ItemStatus> closed = EnumSet.of(ItemStatus.COMPLETED, ItemStatus.CANCELLED);
		for (Set<ItemStatus> statuses : List.of(open, closed, EnumSet.complementOf(EnumSet.of(ItemStatus.READY)))) {
			for (String queue : Arrays.asList(null, "q3", "gate")) {
				assertReadsAboutAPage(new ItemFilter(statuses, queue, null, null));
			}
		}
	}

	/**
	 * A word that no title holds, and one that a few hold: the search walks its fixed
	 * number of titles, then reads the trigram index's matches after them, never the
	 * titles in between (the walk in id order alone read all of them at nine million
	 * items for a word no title held). Explained as ItemViews runs the steps, custom and
	 * generic.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "no title has this", "item 4242" })
	void aRareOrAbsentWordReadsTheWalkAndItsMatchesOnly(String word) {
		assertReadsTheWalkAndTheMatchesAfterIt(new ItemFilter(null, null, null, word), "work_item_titles");
	}

	/**
	 * Within a queue larger than the walk, a word that only other queues' titles hold
	 * (each of the hundred thousand), and one that no title holds: the walk reads its
	 * fixed number of the queue's items, and the index answers that queue's matches only,
	 * never the other queues' (before, the queue's items were read in id order, every one
	 * of them for such a word). Explained as ItemViews runs the steps, custom and
	 * generic.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "item", "no title has this" })
	@Order(WITH_THE_LARGE_QUEUE)
	void aSearchWithinALargeQueueReadsTheWalkAndThatQueuesMatchesOnly(String word) {
		aQueueLargerThanTheWalk();
		assertReadsTheWalkAndTheMatchesAfterIt(new ItemFilter(null, BIG_QUEUE, null, word), "work_items");
	}

	/**
	 * The search's walk reads exactly its fixed number of rows of {@code walked}, and the
	 * rest after it about a page of titles and items, with custom and generic plans.
	 */
	private void assertReadsTheWalkAndTheMatchesAfterIt(ItemFilter filter, String walked) {
		ItemListing listing = ItemListing.of(filter, null, PAGE);
		Map<String, Object> params = new LinkedHashMap<>(listing.params());
		params.put("listed", ItemListing.FIRST_ID);
		params.put("walkedTo", this.jdbc.sql(listing.walkEnd()).params(params).query(UUID.class).single());
		for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
			JsonNode walk = explain(listing.sql(), params, mode);
			assertThat(QueryPlans.rowsRead(walk, walked)).as("%s walked (%s)", walked, mode)
				.isEqualTo(ItemListing.WALKED_TITLES);
			// The planner prices a pattern's matches from a sample of the titles: when
			// that sample happens to hold one, it expects many and would rather join
			// them to the whole of work_items than look each up (seen in CI, once).
			// Nested loops turned off stand for that estimate.
			for (boolean lookupsPriced : List.of(false, true)) {
				JsonNode rest = explain(listing.rest(), params, mode, lookupsPriced);
				for (String table : List.of("work_item_titles", "work_items")) {
					assertThat(QueryPlans.rowsRead(rest, table))
						.as("%s rows read after the walk for %s (%s%s)", table, filter, mode,
								lookupsPriced ? ", nested loops off" : "")
						.isLessThanOrEqualTo(BOUND);
				}
			}
		}
	}

	/**
	 * Pages of a search cross from the walk to the trigram index's matches in id order,
	 * each match once, with and without a status, with and without a queue.
	 */
	@Test
	@Order(WITH_THE_LARGE_QUEUE)
	void aSearchPagesThroughTheWalkAndTheMatchesAfterIt() {
		aQueueLargerThanTheWalk();
		for (Set<ItemStatus> statuses : Arrays.asList(null, EnumSet.of(ItemStatus.COMPLETED),
				EnumSet.of(ItemStatus.READY, ItemStatus.BLOCKED))) {
			for (String queue : Arrays.asList(null, "q9", BIG_QUEUE)) {
				for (String word : List.of("item 9999", "ITEM 777", "big 1999", "no title has this")) {
					String statusCheck = (statuses != null) ? " and status = any(:statuses::text[])" : "";
					List<UUID> expected = this.jdbc
						.sql("select id from work_items where title ilike :pattern" + statusCheck
								+ " and (:queue::text is null or queue = :queue) order by id")
						.param("pattern", "%" + word + "%")
						.param("statuses",
								(statuses != null) ? statuses.stream().map(ItemStatus::wire).toArray(String[]::new)
										: new String[0])
						.param("queue", queue)
						.query(UUID.class)
						.list();
					List<UUID> listed = new ArrayList<>();
					String cursor = null;
					do {
						Page<ItemView> page = this.itemViews.list(new ItemFilter(statuses, queue, null, word), 3,
								cursor);
						page.entries().forEach((item) -> listed.add(item.id()));
						cursor = page.nextCursor();
					}
					while (cursor != null);
					assertThat(listed).as("%s in %s, statuses %s", word, queue, statuses).isEqualTo(expected);
				}
			}
		}
		assertThat(this.jdbc.sql("select count(*) from work_items where title ilike '%item 9999%'")
			.query(Long.class)
			.single()).as("matches of the first word, most of them beyond the walk").isEqualTo(11);
		assertThat(this.jdbc
			.sql("select count(*) from work_items where title ilike '%big 1999%' and queue = '" + BIG_QUEUE + "'")
			.query(Long.class)
			.single()).as("matches of the big queue's word, most of them beyond its walk").isEqualTo(11);
	}

	/**
	 * Four times as many ready items as a search walks, in a queue of their own, titled
	 * {@code big N}: no word of the other queues' titles is in theirs. Added once, for
	 * the tests ordered last.
	 */
	private void aQueueLargerThanTheWalk() {
		if (this.largeQueueAdded) {
			return;
		}
		this.jdbc.sql("""
				with created as (
				    insert into work_items (id, title, queue, status, ready_since)
				    select gen_random_uuid(), 'big ' || n, :queue, 'ready', now() from generate_series(1, :items) n
				    returning id, queue, priority, ready_since)
				insert into ready_items (item_id, queue, priority, ready_since)
				select id, queue, priority, ready_since from created
				""").param("queue", BIG_QUEUE).param("items", 4 * ItemListing.WALKED_TITLES).update();
		this.jdbc.sql("analyze").update();
		this.largeQueueAdded = true;
	}

	private void assertReadsAboutAPage(ItemFilter filter) {
		ItemListing listing = ItemListing.of(filter, null, PAGE);
		for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
			JsonNode plan = explain(listing, mode);
			for (String table : List.of("work_items", "ready_items", "leases", "lease_history", "parked_items")) {
				assertThat(QueryPlans.rowsRead(plan, table)).as("%s rows read for %s (%s)", table, filter, mode)
					.isLessThanOrEqualTo(table.equals("leases") ? Math.max(BOUND, LEASES) : BOUND);
			}
		}
	}

	/**
	 * The listing prepared as the driver prepares it, explained and executed with its
	 * parameters under the given plan_cache_mode, in a transaction rolled back.
	 */
	private JsonNode explain(ItemListing listing, String planCacheMode) {
		return explain(listing.sql(), listing.params(), planCacheMode);
	}

	private JsonNode explain(String statement, Map<String, Object> params, String planCacheMode) {
		return explain(statement, params, planCacheMode, false);
	}

	private JsonNode explain(String statement, Map<String, Object> params, String planCacheMode,
			boolean nestedLoopsOff) {
		// Only the parameters the statement takes: PREPARE cannot type one it never uses.
		List<String> names = params.keySet()
			.stream()
			.filter((name) -> Pattern.compile("(?<!:):" + name + "\\b").matcher(statement).find())
			.toList();
		String sql = statement;
		List<String> arguments = new ArrayList<>();
		for (int i = 0; i < names.size(); i++) {
			sql = sql.replaceAll("(?<!:):" + names.get(i) + "\\b", "\\$" + (i + 1));
			Object value = params.get(names.get(i));
			arguments.add((value instanceof Integer) ? value.toString() : "'" + value + "'");
		}
		String prepared = sql;
		TransactionTemplate rolledBack = new TransactionTemplate(this.transactionManager);
		String json = rolledBack.execute((status) -> {
			status.setRollbackOnly();
			this.jdbc.sql("set local plan_cache_mode = " + planCacheMode).update();
			if (nestedLoopsOff) {
				this.jdbc.sql("set local enable_nestloop = off").update();
			}
			this.jdbc.sql("prepare listing as " + prepared).update();
			try {
				return this.jdbc
					.sql("explain (analyze, format json) execute listing(" + String.join(", ", arguments) + ")")
					.query(String.class)
					.single();
			}
			finally {
				this.jdbc.sql("deallocate listing").update();
			}
		});
		return JsonMapper.builder().build().readTree(json).get(0).get("Plan");
	}

	/**
	 * The listings answer what the rows say (the plans above are of working statements).
	 */
	@Test
	void theOpenItemsOfAQueueAreListed() {
		long open = this.jdbc
			.sql("select count(*) from work_items where queue = 'q3' and status in ('ready', 'leased', 'blocked')")
			.query(Long.class)
			.single();
		ItemListing listing = ItemListing.of(
				new ItemFilter(EnumSet.of(ItemStatus.READY, ItemStatus.LEASED, ItemStatus.BLOCKED), "q3", null, null),
				null, (int) open + 1);
		assertThat(this.jdbc.sql(listing.sql()).params(listing.params()).query().listOfRows()).hasSize((int) open);
	}

}
