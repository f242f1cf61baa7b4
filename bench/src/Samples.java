import java.util.Arrays;

/** A growable list of latencies in nanoseconds, with the percentiles the report needs. */
final class Samples {

	private long[] values = new long[1024];

	private int size;

	void add(long nanos) {
		if (this.size == this.values.length) {
			this.values = Arrays.copyOf(this.values, this.size * 2);
		}
		this.values[this.size++] = nanos;
	}

	void addAll(Samples other) {
		for (int i = 0; i < other.size; i++) {
			add(other.values[i]);
		}
	}

	int size() {
		return this.size;
	}

	/** Nearest-rank percentile in milliseconds (NaN without samples). */
	double percentileMs(double p) {
		if (this.size == 0) {
			return Double.NaN;
		}
		long[] sorted = Arrays.copyOf(this.values, this.size);
		Arrays.sort(sorted);
		int rank = (int) Math.ceil(p / 100.0 * sorted.length);
		return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))] / 1e6;
	}

	static double median(double... xs) {
		double[] s = xs.clone();
		Arrays.sort(s);
		int n = s.length;
		return (n == 0) ? Double.NaN : (n % 2 == 1) ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	}

}
