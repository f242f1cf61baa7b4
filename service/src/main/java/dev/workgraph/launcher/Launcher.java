package dev.workgraph.launcher;

import java.io.File;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The packaged jar's {@code Start-Class}: Spring Boot's loader (which runs on Java 17)
 * calls it, and it is compiled for Java 17 too, while the service's own classes need Java
 * 25. On Java 25 or newer it starts the service directly. On an older Java, the default
 * on many machines where Maven itself runs on 17, it runs the same jar with a Java 25
 * found the way the build finds one ({@link JavaInstallations}), with the same JVM
 * options, arguments, environment, working directory and standard streams, waits for it
 * and exits with its status. A stop asked of this process (Ctrl-C, SIGTERM) is passed on
 * to the service, which shuts down gracefully, and this process waits for it. With no
 * Java 25 to be found it says so in one line, with what to install, and exits with 1.
 */
public final class Launcher {

	/** The Java feature release the service is compiled for. */
	static final int JAVA = 25;

	/** Set for the Java 25 process, so that a wrong Java there cannot start another. */
	static final String RELAUNCHED = "WORKGRAPH_LAUNCHED_FROM_JAVA";

	private static final String APPLICATION = "dev.workgraph.WorkGraphApplication";

	private Launcher() {
	}

	public static void main(String[] args) throws Throwable {
		if (Runtime.version().feature() >= JAVA) {
			// Named, not referenced: this class is compiled for an older Java than it.
			MethodHandles.publicLookup()
				.findStatic(Class.forName(APPLICATION), "main", MethodType.methodType(void.class, String[].class))
				.invokeExact(args);
			return;
		}
		System.exit(relaunch(args));
	}

	private static int relaunch(String[] args) throws InterruptedException {
		String here = "Java " + Runtime.version() + " (" + System.getProperty("java.home") + ")";
		Optional<JavaInstallations.Installation> java = (System.getenv(RELAUNCHED) == null)
				? JavaInstallations.ofThisMachine().first(JAVA) : Optional.empty();
		if (java.isEmpty()) {
			System.err.println("Work Graph needs Java " + JAVA + " or newer; this is " + here + ", and no Java " + JAVA
					+ " was found (in JAVA_HOME, ~/.m2/toolchains.xml or the usual install directories). Install a JDK or "
					+ "JRE " + JAVA + " (for example Eclipse Temurin " + JAVA + " from https://adoptium.net), or point "
					+ "JAVA_HOME at one, and start it again.");
			return 1;
		}
		System.err.println("Work Graph needs Java " + JAVA + " or newer; this is " + here + ": running it with Java "
				+ java.get().version() + " (" + java.get().home() + ")");
		ProcessBuilder builder = new ProcessBuilder(command(java.get(), args)).inheritIO();
		builder.environment().put(RELAUNCHED, Runtime.version().toString());
		Process service;
		try {
			service = builder.start();
		}
		catch (IOException ex) {
			System.err.println("Could not start " + java.get().java() + ": " + ex.getMessage());
			return 1;
		}
		// Ctrl-C, SIGTERM and SIGHUP end this JVM through its shutdown hooks: the service
		// is asked to stop (SIGTERM) and awaited, so nothing outlives this process.
		Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(service), "stop-the-service"));
		return service.waitFor();
	}

	/**
	 * The same jar (or class path) with the same JVM options and arguments, on that Java.
	 */
	private static List<String> command(JavaInstallations.Installation java, String[] args) {
		List<String> command = new ArrayList<>();
		command.add(java.java().toString());
		command.addAll(jvmOptions());
		String classPath = System.getProperty("java.class.path");
		if (!classPath.contains(File.pathSeparator) && classPath.endsWith(".jar")) {
			command.addAll(List.of("-jar", classPath));
		}
		else {
			command.addAll(List.of("-cp", classPath, Launcher.class.getName()));
		}
		command.addAll(Arrays.asList(args));
		return command;
	}

	/**
	 * This JVM's options from its command line. Those of {@code JAVA_TOOL_OPTIONS} and
	 * {@code JDK_JAVA_OPTIONS} come first and are left out: the new JVM inherits the
	 * variables.
	 */
	private static List<String> jvmOptions() {
		List<String> options;
		try {
			options = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments());
		}
		catch (LinkageError ex) {
			// A runtime without java.management: the options stay behind.
			return List.of();
		}
		for (String variable : List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")) {
			String value = System.getenv(variable);
			if (value != null) {
				for (String option : value.strip().split("\\s+")) {
					options.remove(option);
				}
			}
		}
		return options;
	}

	private static void stop(Process service) {
		if (!service.isAlive()) {
			return;
		}
		service.destroy();
		try {
			service.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
