package dev.workgraph.chaos;

import java.util.List;
import java.util.Map;

import dev.workgraph.chaos.Client.Call;
import dev.workgraph.chaos.Client.Reply;
import tools.jackson.databind.JsonNode;

/**
 * The operator who answers questions: reads the open attention requests (the workers' and
 * the crash-loop guard's) and resolves them, some at once, some later. During the drain
 * it resolves everything.
 */
final class Responder extends Actor {

	Responder(long seed, Client client, World world, Tally tally) {
		super(seed, client, world, tally, List.of(), 1);
	}

	@Override
	public void run() {
		while (!this.world.stopped()) {
			boolean everything = !this.world.loading();
			Reply open = send(Call.get("responder", Op.READ, "/attention-requests?status=open&limit=100"));
			if (open.status() == 200) {
				for (JsonNode request : open.body().path("attentionRequests")) {
					if (everything || this.random.nextInt(100) < 60) {
						Reply resolved = send(Call
							.post("responder", Op.RESOLVE,
									"/attention-requests/" + request.path("id").asString() + "/resolve",
									Map.of("resolution", "Use the staging database.", "resolvedBy", "operator"))
							.item(Client.uuid(request.path("itemId"))));
						if (resolved.ok()) {
							this.tally.add("system".equals(request.path("raisedBy").asString())
									? "crash_loop_requests_resolved" : "worker_requests_resolved");
						}
					}
				}
			}
			this.pacing.pause(everything ? 100 : 200, everything ? 200 : 700);
		}
	}

	private Reply send(Call call) {
		Reply reply = this.client.send(call.via(this.pacing.instance()));
		if (reply.unavailable()) {
			this.pacing.switchInstance();
		}
		return reply;
	}

}
