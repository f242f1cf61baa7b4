import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * The raw ceiling's SQL, taken from the service itself: the packaged jar is unpacked and
 * the statement constants named in bench/statements.properties are read by reflection, so
 * the pgbench scripts run exactly the statements the service runs (same tables, indexes,
 * plans). The service's BenchStatementsTests reads the same file and fails when a name no
 * longer exists or a hot path runs another statement.
 */
final class Sql {

	/** Production defaults (application.yml): lease 300 s, continuity window 10 min. */
	static final String LEASE_SECONDS = "300";

	static final String CONTINUITY_SECONDS = "600";

	/** Spring-style named parameters; "::casts" (preceded by a colon) are left alone. */
	private static final Pattern PARAM = Pattern.compile("(?<![:\\w]):([A-Za-z_][A-Za-z0-9_]*)");

	final String claim;

	final String lockItem;

	final String complete;

	final String renew;

	final String audit;

	/**
	 * The read that builds the complete's answer (the item's view, by its id); null when
	 * the completion statement answers the view itself.
	 */
	final String completeView;

	/**
	 * The read that builds the claim's answer (the claimed row's parts, by its id); null
	 * when the claim statement answers the view itself.
	 */
	final String claimView;

	/**
	 * The plan setting the service sends ahead of a lone claim (in the same round trip);
	 * null for none.
	 */
	final String genericPlans;

	/** Where each statement came from (name -> class#field), for the results file. */
	final Map<String, String> sources;

	private Sql(ClassLoader app, Map<String, String> names) throws ReflectiveOperationException {
		this.sources = names;
		this.claim = constant(app, names, "claim");
		this.lockItem = constant(app, names, "lockItem");
		this.complete = constant(app, names, "complete");
		this.renew = constant(app, names, "renew");
		this.audit = constant(app, names, "audit");
		this.claimView = names.containsKey("claimView") ? constant(app, names, "claimView") : null;
		this.genericPlans = names.containsKey("genericPlans") ? constant(app, names, "genericPlans") : null;
		this.completeView = names.containsKey("completeView") ? constant(app, names, "completeView") : null;
	}

	/** name -> "class#field", in file order. */
	static Map<String, String> names(Path statements) throws IOException {
		Properties p = new Properties();
		try (var in = Files.newBufferedReader(statements)) {
			p.load(in);
		}
		Map<String, String> names = new LinkedHashMap<>();
		for (String line : Files.readAllLines(statements)) {
			String key = line.contains("=") ? line.substring(0, line.indexOf('=')).strip() : "";
			if (!key.isEmpty() && !key.startsWith("#") && p.containsKey(key)) {
				names.put(key, p.getProperty(key).strip());
			}
		}
		return names;
	}

	/** Unpacks the jar's classes and libraries into {@code dir} and reads the statements. */
	static Sql fromJar(Path jar, Path dir, Path statements) throws IOException, ReflectiveOperationException {
		unzip(jar, dir);
		List<URL> urls = new ArrayList<>();
		urls.add(dir.resolve("BOOT-INF/classes").toUri().toURL());
		try (var libs = Files.list(dir.resolve("BOOT-INF/lib"))) {
			for (Path lib : libs.toList()) {
				urls.add(lib.toUri().toURL());
			}
		}
		// Class initialisation needs the service's dependencies (the constants are built with
		// String.formatted, so they are not compile-time constants that javac could inline).
		try (URLClassLoader app = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
			return new Sql(app, names(statements));
		}
	}

	private static String constant(ClassLoader app, Map<String, String> names, String name)
			throws ReflectiveOperationException {
		String source = names.get(name);
		if (source == null || !source.contains("#")) {
			throw new IllegalArgumentException("bench/statements.properties: no class#field for '" + name + "'");
		}
		Field f = Class.forName(source.substring(0, source.indexOf('#')), true, app)
			.getDeclaredField(source.substring(source.indexOf('#') + 1));
		f.setAccessible(true);
		return (String) f.get(null);
	}

	/**
	 * Replaces each named parameter with pgbench text (a pgbench {@code :variable}, a
	 * literal or an expression); a parameter without a binding is a bug in this class.
	 */
	static String bind(String sql, Map<String, String> values) {
		Matcher m = PARAM.matcher(sql);
		StringBuilder out = new StringBuilder();
		while (m.find()) {
			String value = values.get(m.group(1));
			if (value == null) {
				throw new IllegalStateException("no pgbench binding for :" + m.group(1) + " in\n" + sql);
			}
			m.appendReplacement(out, Matcher.quoteReplacement(value));
		}
		m.appendTail(out);
		return out.toString().strip();
	}

	/**
	 * The claim as one statement, after the plan setting the service sends before it
	 * (when statements.properties names one), in one transaction: pgbench cannot send the
	 * two in one round trip as the service does (a prepared statement holds one command;
	 * pipeline mode refuses {@code \gset}), so the raw claim pays two round trips more, and
	 * giving its sessions the setting instead would impose it on the completion's
	 * statements too, which the service leaves to PostgreSQL. Its lease id and epoch are
	 * kept in pgbench variables c_lease_id / c_epoch by {@code \gset}. The lease id is
	 * UUIDv7-shaped (Fixtures' bench_uuid7), as the service's are, so the lease and
	 * history keys grow at their right edge on both sides; the worker id is per client.
	 */
	String claimScript() {
		String claim = bind(this.claim, Map.of("leaseId", "bench_uuid7(clock_timestamp())", "workerId",
				"('raw-' || :client_id::text)", "leaseSeconds", LEASE_SECONDS, "continuitySeconds", CONTINUITY_SECONDS))
				+ "\n\\gset c_\n";
		if (this.genericPlans == null) {
			return "-- " + this.sources.get("claim") + "\n" + claim;
		}
		return "-- " + this.sources.get("genericPlans") + " + " + this.sources.get("claim") + " in one transaction\nbegin;\n"
				+ this.genericPlans + ";\n" + claim + "end;\n";
	}

	/**
	 * LeaseCommands.complete: one transaction, the item locked first, then the fenced
	 * completion, the two sent in one round trip as the service sends them (a pipeline:
	 * neither needs the other's answer), then the commit in a round trip of its own.
	 */
	String completeScript() {
		Map<String, String> lease = Map.of("leaseId", ":c_lease_id", "epoch", ":c_epoch", "result", "NULL");
		return "-- " + this.sources.get("lockItem") + " + " + this.sources.get("complete")
				+ " in one transaction, the two in one round trip\n\\startpipeline\nbegin;\n"
				+ bind(this.lockItem, lease) + ";\n" + bind(this.complete, lease) + ";\n\\endpipeline\nend;\n";
	}

	/** LeaseCommands.renew: the fenced renewal, one statement committed on its own. */
	String renewScript() {
		return "-- " + this.sources.get("renew") + " in autocommit\n" + bind(this.renew,
				Map.of("leaseId", ":c_lease_id", "epoch", ":c_epoch", "leaseSeconds", LEASE_SECONDS)) + ";\n";
	}

	/** A view read in autocommit, as the service runs it, for the claimed item (c_id). */
	static String viewScript(String comment, String read) {
		return "-- " + comment + "\n" + bind(read, Map.of("id", ":c_id")) + ";\n";
	}

	/** The pgbench scripts by name: the lifecycle (claim then complete) and its renew variant. */
	Map<String, String> scripts() {
		Map<String, String> scripts = new LinkedHashMap<>();
		scripts.put("lifecycle", claimScript() + completeScript());
		scripts.put("lifecycle_renew", claimScript() + renewScript() + completeScript());
		return scripts;
	}

	/** Whether the claim's or the complete's answer takes a read of its own. */
	boolean answersReadSeparately() {
		return this.claimView != null || this.completeView != null;
	}

	/**
	 * Not the raw ceiling but a diagnostic: the lifecycle plus the reads that build the two
	 * responses (ItemViews), i.e. all the SQL the service runs per item, without HTTP.
	 */
	String lifecycleWithViews() {
		return claimScript() + answerRead("claimView", this.claimView, "the claim's answer") + completeScript()
				+ answerRead("completeView", this.completeView, "the complete's answer");
	}

	/** The script of an answer's own read, or nothing when the answer takes none. */
	private String answerRead(String name, String view, String answer) {
		return (view != null) ? viewScript(this.sources.get(name) + " for " + answer, view) : "";
	}

	private static void unzip(Path jar, Path dir) throws IOException {
		try (InputStream in = Files.newInputStream(jar); ZipInputStream zip = new ZipInputStream(in)) {
			for (ZipEntry e; (e = zip.getNextEntry()) != null;) {
				if (e.isDirectory() || !e.getName().startsWith("BOOT-INF/")) {
					continue;
				}
				Path target = dir.resolve(e.getName()).normalize();
				if (!target.startsWith(dir)) {
					throw new IOException("unexpected jar entry " + e.getName());
				}
				Files.createDirectories(target.getParent());
				Files.copy(zip, target);
			}
		}
	}

}
