import java.util.ArrayList;
import java.util.List;

/** Measured figures of one side of a point, one entry per repetition. */
final class SideRuns {

	final String generator;

	int clients;

	final List<Double> rates = new ArrayList<>();

	final List<Results.Latency> claim = new ArrayList<>();

	final List<Results.Latency> renew = new ArrayList<>();

	final List<Results.Latency> complete = new ArrayList<>();

	final List<Cpu.Cores> cpu = new ArrayList<>();

	long errors;

	long empty;

	SideRuns(String generator, int clients) {
		this.generator = generator;
		this.clients = clients;
	}

	/** Records one measured wrk run. */
	void add(Wrk.Run r) {
		this.rates.add(r.itemsPerSecond());
		this.claim.add(r.claimMs());
		this.renew.add(r.renewMs());
		this.complete.add(r.completeMs());
		this.cpu.add(r.cpu());
		this.errors += r.errors() + r.socketErrors();
		this.empty += r.emptyClaims();
	}

	/** Records one measured run of the JVM generator, with the cores used meanwhile. */
	void add(Load.Tally t, Cpu.Cores cores) {
		this.rates.add(t.itemsPerSecond());
		this.claim.add(Results.Latency.of(t.claim));
		this.renew.add(Results.Latency.of(t.renew));
		this.complete.add(Results.Latency.of(t.complete));
		this.cpu.add(cores);
		this.errors += t.errors;
		this.empty += t.empty;
	}

	/** Records one measured pgbench run (no latencies per request). */
	void add(Pg.PgbenchResult r, Cpu.Cores cores) {
		this.rates.add(r.tps());
		this.cpu.add(cores);
		this.claim.add(Results.Latency.none());
		this.complete.add(Results.Latency.none());
	}

	Results.Side side() {
		return new Results.Side(this.generator, this.clients, Results.Spread.of(this.rates),
				Results.Latency.worst(this.claim), Results.Latency.worst(this.renew),
				Results.Latency.worst(this.complete), this.errors, this.empty, Results.CpuCores.of(this.cpu));
	}

}
