package dev.workgraph.launcher;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The Java installations of this machine, looked for where Maven's toolchains plugin
 * looks for the JDK that builds Work Graph (its JDK discovery), so that the Java that
 * builds the jar also runs it: {@code JAVA_HOME}, the other {@code JAVA…_HOME} variables,
 * the JDKs of {@code ~/.m2/toolchains.xml} and of the plugin's discovery cache, then the
 * directories that JDK installers and version managers use. A JDK or a JRE will do; its
 * version is read from its {@code release} file, so nothing is run to find it.
 */
final class JavaInstallations {

	/**
	 * Replaces the directories whose subdirectories are Java installations (a list in the
	 * platform's path syntax).
	 */
	static final String DIRECTORIES_PROPERTY = "workgraph.launcher.java-dirs";

	private static final Pattern JDK_HOME = Pattern.compile("<jdkHome>\\s*([^<]+?)\\s*</jdkHome>");

	private static final Pattern JAVA_VERSION = Pattern.compile("^JAVA_VERSION=\"?([0-9][^\"]*)\"?\\s*$",
			Pattern.MULTILINE);

	private static final boolean WINDOWS = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("win");

	/** A Java installation and its version, e.g. 25 and {@code 25.0.3}. */
	record Installation(Path home, int feature, String version) {

		Path java() {
			return this.home.resolve("bin").resolve(WINDOWS ? "java.exe" : "java");
		}

	}

	private final Map<String, String> environment;

	private final Path userHome;

	private final List<Path> directories;

	JavaInstallations(Map<String, String> environment, Path userHome, List<Path> directories) {
		this.environment = environment;
		this.userHome = userHome;
		this.directories = directories;
	}

	static JavaInstallations ofThisMachine() {
		Path userHome = Path.of(System.getProperty("user.home"));
		String configured = System.getProperty(DIRECTORIES_PROPERTY);
		List<Path> directories = (configured != null) ? Stream.of(configured.split(File.pathSeparator))
			.filter((entry) -> !entry.isBlank())
			.map(Path::of)
			.toList() : defaultDirectories(userHome);
		return new JavaInstallations(System.getenv(), userHome, directories);
	}

	/**
	 * The first installation of at least this feature version, in order of preference.
	 */
	Optional<Installation> first(int feature) {
		return all().stream().filter((installation) -> installation.feature() >= feature).findFirst();
	}

	/**
	 * Every installation found: {@code JAVA_HOME}, the other {@code JAVA…_HOME}
	 * variables, the toolchains' JDKs, then those of the directories, newest first.
	 */
	List<Installation> all() {
		Set<Path> named = new LinkedHashSet<>();
		add(named, this.environment.get("JAVA_HOME"));
		this.environment.entrySet()
			.stream()
			.filter((variable) -> namesAJavaHome(variable.getKey()))
			.sorted(Map.Entry.comparingByKey())
			.forEach((variable) -> add(named, variable.getValue()));
		for (String toolchains : List.of("toolchains.xml", "discovered-jdk-toolchains-cache.xml")) {
			jdkHomes(this.userHome.resolve(".m2").resolve(toolchains)).forEach((home) -> add(named, home));
		}
		List<Installation> found = new ArrayList<>(installations(named.stream()));
		List<Installation> installed = new ArrayList<>(installations(this.directories.stream()
			.filter(Files::isDirectory)
			.flatMap(JavaInstallations::children)
			.flatMap((child) -> Stream.of(child, child.resolve("Contents").resolve("Home")))));
		installed.sort(Comparator.comparing(Installation::feature)
			.thenComparing(Installation::version, JavaInstallations::compareVersions)
			.reversed());
		found.addAll(installed);
		Set<Path> seen = new LinkedHashSet<>();
		return found.stream().filter((installation) -> seen.add(realPath(installation.home()))).toList();
	}

	/**
	 * {@code JAVA_HOME}, {@code JAVA25_HOME} and the like, and CI runners'
	 * {@code JAVA_HOME_25_X64}.
	 */
	static boolean namesAJavaHome(String variable) {
		return variable.startsWith("JAVA") && (variable.endsWith("_HOME") || variable.startsWith("JAVA_HOME_"));
	}

	/** The directories where installers and version managers put Java installations. */
	static List<Path> defaultDirectories(Path userHome) {
		List<Path> directories = new ArrayList<>();
		for (String managed : List.of(".jdks", ".m2/jdks", ".sdkman/candidates/java", ".gradle/jdks", ".jenv/versions",
				".jbang/cache/jdks", ".asdf/installs/java", ".jabba/jdk", ".local/share/mise/installs/java")) {
			directories.add(userHome.resolve(managed));
		}
		String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
		if (os.startsWith("mac")) {
			directories.add(Path.of("/Library/Java/JavaVirtualMachines"));
			directories.add(userHome.resolve("Library/Java/JavaVirtualMachines"));
		}
		else if (WINDOWS) {
			for (String vendor : List.of("Java", "Eclipse Adoptium", "Zulu", "BellSoft", "Amazon Corretto",
					"Microsoft")) {
				directories.add(Path.of("C:\\Program Files", vendor));
			}
		}
		else {
			for (String system : List.of("/usr/lib/jvm", "/usr/lib64/jvm", "/usr/java", "/usr/jdk", "/usr/local/java",
					"/opt/java")) {
				directories.add(Path.of(system));
			}
		}
		return directories;
	}

	/** The installation at {@code home}, if it has a {@code java} and a version. */
	static Optional<Installation> at(Path home) {
		Path release = home.resolve("release");
		if (!Files.isRegularFile(release)) {
			return Optional.empty();
		}
		try {
			Matcher version = JAVA_VERSION.matcher(Files.readString(release, StandardCharsets.UTF_8));
			if (!version.find()) {
				return Optional.empty();
			}
			Installation installation = new Installation(home, feature(version.group(1)), version.group(1));
			return Files.isExecutable(installation.java()) ? Optional.of(installation) : Optional.empty();
		}
		catch (IOException | RuntimeException ex) {
			return Optional.empty();
		}
	}

	/** 25 of {@code 25.0.3}, 8 of {@code 1.8.0_402}. */
	static int feature(String version) {
		String[] parts = version.split("[^0-9]+");
		int first = Integer.parseInt(parts[0]);
		return (first == 1 && parts.length > 1) ? Integer.parseInt(parts[1]) : first;
	}

	private static List<Installation> installations(Stream<Path> homes) {
		return homes.map(JavaInstallations::at).flatMap(Optional::stream).toList();
	}

	private static void add(Set<Path> homes, String home) {
		if (home != null && !home.isBlank() && !home.contains("${")) {
			homes.add(Path.of(home.strip()));
		}
	}

	/**
	 * The {@code jdkHome} entries of a toolchains file (a plain read: nothing else is
	 * needed).
	 */
	private static List<String> jdkHomes(Path toolchains) {
		if (!Files.isRegularFile(toolchains)) {
			return List.of();
		}
		try {
			Matcher homes = JDK_HOME.matcher(Files.readString(toolchains, StandardCharsets.UTF_8));
			List<String> found = new ArrayList<>();
			while (homes.find()) {
				found.add(homes.group(1));
			}
			return found;
		}
		catch (IOException ex) {
			return List.of();
		}
	}

	private static Stream<Path> children(Path directory) {
		try (Stream<Path> children = Files.list(directory)) {
			return children.sorted().toList().stream();
		}
		catch (IOException ex) {
			return Stream.empty();
		}
	}

	private static Path realPath(Path path) {
		try {
			return path.toRealPath();
		}
		catch (IOException ex) {
			return path.toAbsolutePath().normalize();
		}
	}

	private static int compareVersions(String left, String right) {
		String[] a = left.split("[^0-9]+");
		String[] b = right.split("[^0-9]+");
		for (int i = 0; i < Math.min(a.length, b.length); i++) {
			int order = Long.compare(parse(a[i]), parse(b[i]));
			if (order != 0) {
				return order;
			}
		}
		return Integer.compare(a.length, b.length);
	}

	private static long parse(String number) {
		return number.isEmpty() ? 0 : Long.parseLong(number.substring(0, Math.min(number.length(), 18)));
	}

}
