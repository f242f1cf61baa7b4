import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.worker.LeaseContext;
import dev.workgraph.client.worker.Worker;
import dev.workgraph.client.worker.WorkerListener;

/**
 * The stream point's workers (bench/src/StreamPoint.java starts this in a JVM of its own):
 * one worker of the project's Java runtime with CONCURRENCY no-op handlers, on the worker
 * stream (its default), processing the ready items of the bench's queue as users run it.
 * Counts completed leases over MEASURE_SECONDS after WARM_SECONDS, between the lines
 * "wg-window start" and "wg-window end", and prints one line "wg-stream {json}" with the
 * rate and this JVM's own CPU over the window.
 *
 *   java -cp <client classpath> bench/stream/StreamWorkers.java URL TOKEN WORKER_ID CONCURRENCY WARM MEASURE
 */
public class StreamWorkers {

	public static void main(String[] args) throws Exception {
		String url = args[0];
		String token = args[1];
		String workerId = args[2];
		int concurrency = Integer.parseInt(args[3]);
		int warmSeconds = Integer.parseInt(args[4]);
		int measureSeconds = Integer.parseInt(args[5]);
		boolean stream = args.length < 7 || !args[6].equals("http");
		AtomicLong completed = new AtomicLong();
		WorkGraphClient client = WorkGraphClient.builder(url).token(token).requestTimeout(Duration.ofSeconds(30)).build();
		Worker worker = Worker.builder(client)
			.workerId(workerId)
			.queues("default")
			.concurrency(concurrency)
			.leaseSeconds(300)
			.waitSeconds(30)
			.stream(stream)
			.handlerThreads(Thread.ofVirtual().factory())
			.handler((lease) -> null)
			.listener(new WorkerListener() {
				@Override
				public void leaseEnded(LeaseContext lease, LeaseOutcome outcome) {
					if (outcome == LeaseOutcome.COMPLETED) {
						completed.incrementAndGet();
					}
				}
			})
			.build()
			.start();
		var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
		Thread.sleep(warmSeconds * 1000L);
		System.out.println("wg-window start");
		long from = completed.get();
		long cpuFrom = os.getProcessCpuTime();
		long start = System.nanoTime();
		Thread.sleep(measureSeconds * 1000L);
		long to = completed.get();
		long cpuTo = os.getProcessCpuTime();
		double window = (System.nanoTime() - start) / 1e9;
		System.out.println("wg-window end");
		worker.stop(Duration.ofSeconds(10));
		System.out.println(String.format(Locale.ROOT,
				"wg-stream {\"itemsPerSecond\":%.1f,\"windowSeconds\":%.2f,\"workerCpuCores\":%.3f,\"transport\":\"%s\"}",
				(to - from) / window, window, (cpuTo - cpuFrom) / 1e9 / window, stream ? "stream" : "http"));
		System.exit(0);
	}

}
