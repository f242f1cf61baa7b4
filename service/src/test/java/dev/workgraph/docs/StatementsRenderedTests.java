package dev.workgraph.docs;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.workgraph.testing.RepositoryRoot;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every statement the service runs, rendered whole into {@code docs/sql}: one file per
 * class, each statement under its constant's name ({@code -- name: CLAIM_NEXT_READY}), as
 * it reaches PostgreSQL after the Java that composes it (shared fragments, the lease
 * guard, column lists) has run. A reader sees exactly what runs without assembling it in
 * their head; a change to a statement shows in review as a change to its file.
 *
 * <p>
 * The test fails when a rendering differs from its checked-in file. Run it with
 * {@code -Dsql.render=true} (or {@code SQL_RENDER=true} in the environment) to write the
 * files, then review and commit them.
 */
class StatementsRenderedTests {

	/** What a statement starts with; fragments and templates are not statements. */
	private static final Pattern STATEMENT = Pattern.compile("^(select|with|update|insert|delete|lock)\\b",
			Pattern.CASE_INSENSITIVE);

	private static final Path DIRECTORY = RepositoryRoot.path().resolve("docs/sql");

	@Test
	void everyStatementIsRenderedInItsCheckedInFile() throws IOException {
		Map<String, String> rendered = render();
		assertThat(rendered).as("the service's statements").isNotEmpty();
		if (Boolean.getBoolean("sql.render") || "true".equals(System.getenv("SQL_RENDER"))) {
			write(rendered);
		}
		List<String> stale = new ArrayList<>();
		for (Map.Entry<String, String> file : rendered.entrySet()) {
			Path path = DIRECTORY.resolve(file.getKey());
			if (!Files.exists(path) || !Files.readString(path).equals(file.getValue())) {
				stale.add(file.getKey());
			}
		}
		assertThat(stale)
			.as("docs/sql files that differ from what the code runs; run this test with "
					+ "-Dsql.render=true, review the change and commit it")
			.isEmpty();
		assertThat(checkedIn()).as("docs/sql files of no class's statements").isEqualTo(rendered.keySet());
	}

	/** File name to content, one file per class that has statements. */
	private static Map<String, String> render() {
		Map<String, String> files = new TreeMap<>();
		for (JavaClass type : new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages("dev.workgraph")) {
			if (type.getPackageName().startsWith("dev.workgraph.launcher")) {
				continue; // Java 17 bytecode, and no SQL
			}
			Map<String, String> statements = statements(type.reflect());
			if (!statements.isEmpty()) {
				String name = type.getName().substring("dev.workgraph.".length());
				files.put(name + ".sql", file(type.getName(), statements));
			}
		}
		return files;
	}

	/** The class's statements by constant name, in declaration order. */
	private static Map<String, String> statements(Class<?> type) {
		Map<String, String> statements = new LinkedHashMap<>();
		for (Field field : type.getDeclaredFields()) {
			int modifiers = field.getModifiers();
			if (field.getType() != String.class || !Modifier.isStatic(modifiers) || !Modifier.isFinal(modifiers)
					|| !field.getName().equals(field.getName().toUpperCase(Locale.ROOT))) {
				continue;
			}
			String value = value(field);
			if (value != null && STATEMENT.matcher(value.strip()).find() && !value.contains("%s")) {
				statements.put(field.getName(), value);
			}
		}
		return statements;
	}

	private static String value(Field field) {
		try {
			field.setAccessible(true);
			return (String) field.get(null);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String file(String className, Map<String, String> statements) {
		StringBuilder file = new StringBuilder();
		file.append("-- The statements of ").append(className).append(", exactly as they run.\n");
		file.append("-- Rendered by StatementsRenderedTests: change the Java, not this file.\n");
		statements.forEach((name, sql) -> {
			file.append("\n-- name: ").append(name).append('\n');
			sql.strip().lines().map(String::stripTrailing).forEach((line) -> file.append(line).append('\n'));
		});
		return file.toString();
	}

	private static void write(Map<String, String> rendered) throws IOException {
		Files.createDirectories(DIRECTORY);
		for (Path old : checkedInPaths()) {
			if (!rendered.containsKey(old.getFileName().toString())) {
				Files.delete(old);
			}
		}
		for (Map.Entry<String, String> file : rendered.entrySet()) {
			Files.writeString(DIRECTORY.resolve(file.getKey()), file.getValue());
		}
	}

	private static Set<String> checkedIn() throws IOException {
		Set<String> names = new TreeSet<>();
		checkedInPaths().forEach((path) -> names.add(path.getFileName().toString()));
		return names;
	}

	private static List<Path> checkedInPaths() throws IOException {
		if (!Files.isDirectory(DIRECTORY)) {
			return List.of();
		}
		try (Stream<Path> files = Files.list(DIRECTORY)) {
			return files.filter((path) -> path.toString().endsWith(".sql")).toList();
		}
	}

}
