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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * The raw ceiling's SQL, taken from the service itself: the packaged jar is unpacked and
 * the statement constants are read by reflection, so the pgbench scripts run exactly the
 * statements the service runs (same tables, indexes, plans) and cannot drift from them.
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

	/** The reads that build the response's item view (ItemViews.find / assemble). */
	final List<String> itemView;

	final List<String> claimView;

	private Sql(ClassLoader app) throws ReflectiveOperationException {
		this.claim = constant(app, "dev.workgraph.lease.Claims", "CLAIM_NEXT_READY");
		this.lockItem = constant(app, "dev.workgraph.lease.Fencing", "LOCK_ITEM_OF_LEASE");
		this.complete = constant(app, "dev.workgraph.lease.Fencing", "COMPLETE_IF_CURRENT");
		this.renew = constant(app, "dev.workgraph.lease.Fencing", "RENEW_IF_CURRENT");
		this.audit = constant(app, "dev.workgraph.audit.ConsistencyAudit", "INCONSISTENT_ITEMS");
		// The claim's answer assembles the claimed row's parts (it has the row already); the
		// complete's answer loads the item with its parts. One statement each.
		this.claimView = List.of(constant(app, "dev.workgraph.view.ItemViews", "PARTS_OF_ITEMS"));
		this.itemView = List.of(constant(app, "dev.workgraph.view.ItemViews", "ITEM_VIEWS_BY_ID"));
	}

	/** Unpacks the jar's classes and libraries into {@code dir} and reads the statements. */
	static Sql fromJar(Path jar, Path dir) throws IOException, ReflectiveOperationException {
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
			return new Sql(app);
		}
	}

	private static String constant(ClassLoader app, String className, String field)
			throws ReflectiveOperationException {
		Field f = Class.forName(className, true, app).getDeclaredField(field);
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
	 * The claim as one statement (the service runs it in autocommit), its lease id and
	 * epoch kept in pgbench variables c_lease_id / c_epoch by {@code \gset}. The lease id
	 * is random (the service uses UUIDv7 from the JVM); the worker id is per client.
	 */
	String claimScript() {
		return "-- Claims.CLAIM_NEXT_READY\n" + bind(this.claim, Map.of("leaseId", "gen_random_uuid()", "workerId",
				"('raw-' || :client_id::text)", "leaseSeconds", LEASE_SECONDS, "continuitySeconds", CONTINUITY_SECONDS))
				+ "\n\\gset c_\n";
	}

	/** LeaseCommands.complete: one transaction, the item locked first, then the fenced completion. */
	String completeScript() {
		Map<String, String> lease = Map.of("leaseId", ":c_lease_id", "epoch", ":c_epoch", "result", "NULL");
		return "-- Fencing.LOCK_ITEM_OF_LEASE + Fencing.COMPLETE_IF_CURRENT in one transaction\nbegin;\n"
				+ bind(this.lockItem, lease) + ";\n" + bind(this.complete, lease) + ";\nend;\n";
	}

	/** LeaseCommands.renew: the fenced renewal in its own transaction. */
	String renewScript() {
		return "-- Fencing.RENEW_IF_CURRENT in one transaction\nbegin;\n" + bind(this.renew,
				Map.of("leaseId", ":c_lease_id", "epoch", ":c_epoch", "leaseSeconds", LEASE_SECONDS)) + ";\nend;\n";
	}

	/**
	 * The view reads, each in autocommit as the service runs them, for the claimed item (the
	 * service passes the id array as text '{...}' cast to uuid[]).
	 */
	static String viewScript(String comment, List<String> reads) {
		StringBuilder out = new StringBuilder("-- " + comment + "\n");
		for (String read : reads) {
			out.append(bind(read, Map.of("ids", "('{' || :c_id::text || '}')"))).append(";\n");
		}
		return out.toString();
	}

	/** The pgbench scripts by name: the lifecycle (claim then complete) and its renew variant. */
	Map<String, String> scripts() {
		Map<String, String> scripts = new LinkedHashMap<>();
		scripts.put("lifecycle", claimScript() + completeScript());
		scripts.put("lifecycle_renew", claimScript() + renewScript() + completeScript());
		return scripts;
	}

	/**
	 * Not the raw ceiling but a diagnostic: the lifecycle plus the reads that build the two
	 * responses (ItemViews), i.e. all the SQL the service runs per item, without HTTP.
	 */
	String lifecycleWithViews() {
		return claimScript() + viewScript("ItemViews.assemble for the claim's answer", this.claimView)
				+ completeScript() + viewScript("ItemViews.find for the complete's answer", this.itemView);
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
