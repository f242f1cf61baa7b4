package dev.workgraph.item;

import java.util.List;

import dev.workgraph.view.QueueView;
import dev.workgraph.view.QueueViews;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /queues}: the backlog of every queue that has open items. */
@RestController
class QueueController {

	private final QueueViews views;

	QueueController(QueueViews views) {
		this.views = views;
	}

	@GetMapping("/queues")
	QueueList list() {
		return new QueueList(this.views.backlogs());
	}

	record QueueList(List<QueueView> queues) {
	}

}
