package dev.workgraph.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * Runs tasks on their own threads, released together by a barrier, and returns their
 * results in task order; the first failure fails the test with its cause.
 */
public final class Concurrently {

	private static final long TIMEOUT_MINUTES = 5;

	private Concurrently() {
	}

	public static <T> List<T> run(int threads, IntFunction<T> task) {
		CyclicBarrier start = new CyclicBarrier(threads);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<T>> futures = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				int index = i;
				futures.add(executor.submit(() -> {
					start.await(1, TimeUnit.MINUTES);
					return task.apply(index);
				}));
			}
			List<T> results = new ArrayList<>();
			for (Future<T> future : futures) {
				results.add(future.get(TIMEOUT_MINUTES, TimeUnit.MINUTES));
			}
			return results;
		}
		catch (ExecutionException ex) {
			throw new AssertionError("A concurrent task failed: " + ex.getCause(), ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError(ex);
		}
		catch (TimeoutException ex) {
			throw new AssertionError("Concurrent tasks did not finish in " + TIMEOUT_MINUTES + " minutes", ex);
		}
		finally {
			executor.shutdownNow();
		}
	}

	/** Runs the tasks at the same moment and returns their results in task order. */
	public static <T> List<T> run(List<Callable<T>> tasks) {
		return run(tasks.size(), (i) -> {
			try {
				return tasks.get(i).call();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	public static void all(Runnable... tasks) {
		run(tasks.length, (i) -> {
			tasks[i].run();
			return null;
		});
	}

	/** Sleeps; an interrupt fails the test. */
	public static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
