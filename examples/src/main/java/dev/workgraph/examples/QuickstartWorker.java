package dev.workgraph.examples;

import java.util.Map;

import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.worker.Worker;

public class QuickstartWorker {

	public static void main(String[] args) {
		WorkGraphClient client = WorkGraphClient.builder("http://localhost:8080")
			.token(System.getenv("WORKGRAPH_TOKEN")) // unset: no token
			.build();
		Worker worker = Worker.builder(client)
			.workerId("summariser-1") // stable across restarts
			.queues("writing")
			.concurrency(4) // items worked on at once
			.leaseSeconds(60) // renewed every 20 s in the background
			.handler((lease) -> {
				for (int step = 1; step <= 10; step++) {
					lease.ensureHeld(); // throws once the lease is lost
					Thread.sleep(1_000); // real work; interrupted if lost
				}
				return Map.of("summary", lease.item().title()); // the result
			})
			.build()
			.start();
		Runtime.getRuntime().addShutdownHook(new Thread(worker::close)); // Ctrl-C
	}

}
