package dev.workgraph.chaos;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Counts of what the simulated actors deliberately did (stalls, crashes, replays …). */
final class Tally {

	private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

	void add(String what) {
		this.counts.computeIfAbsent(what, (key) -> new LongAdder()).increment();
	}

	long get(String what) {
		LongAdder count = this.counts.get(what);
		return (count != null) ? count.sum() : 0;
	}

	Map<String, Long> snapshot() {
		Map<String, Long> sorted = new TreeMap<>();
		this.counts.forEach((key, value) -> sorted.put(key, value.sum()));
		return sorted;
	}

}
