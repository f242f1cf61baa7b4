package dev.workgraph.item;

import java.util.List;
import java.util.regex.Pattern;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;
import dev.workgraph.sql.Transactions;
import dev.workgraph.view.QueueView;
import dev.workgraph.view.QueueViews;
import jakarta.validation.Valid;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /queues}: the backlog of every queue that has open items (or settings);
 * {@code GET /queues/{name}} one of them; {@code PATCH /queues/{name}} pauses, resumes
 * and caps it.
 */
@RestController
class QueueController {

	private static final Pattern NAME = Pattern.compile(QueueNames.PATTERN);

	private final QueueViews views;

	private final QueueSettings settings;

	private final Transactions transactions;

	QueueController(QueueViews views, QueueSettings settings, Transactions transactions) {
		this.views = views;
		this.settings = settings;
		this.transactions = transactions;
	}

	@GetMapping("/queues")
	QueueList list() {
		return new QueueList(this.views.backlogs());
	}

	@GetMapping("/queues/{name}")
	QueueView get(@PathVariable String name) {
		return this.views.queue(validName(name));
	}

	@PatchMapping("/queues/{name}")
	QueueView change(@PathVariable String name, @Valid @RequestBody QueueChange change) {
		String queue = validName(name);
		return this.transactions.inTransaction(() -> {
			this.settings.change(queue, change);
			return this.views.queue(queue);
		});
	}

	/** A name no item could have names no queue (like a malformed id: 404). */
	private static String validName(String name) {
		if (!NAME.matcher(name).matches()) {
			throw new RequestRejected(ProblemCode.NOT_FOUND,
					"No queue can be named '" + name + "'; queue names " + QueueNames.MESSAGE);
		}
		return name;
	}

	record QueueList(List<QueueView> queues) {
	}

}
