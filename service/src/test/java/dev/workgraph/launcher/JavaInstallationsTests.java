package dev.workgraph.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Java installations are found where the build's toolchains plugin finds JDKs, in its
 * order of preference, and told apart by their {@code release} files.
 */
class JavaInstallationsTests {

	@TempDir
	Path root;

	@Test
	void javaHomeComesFirstWhenItIsNewEnough() throws IOException {
		Path home = install("configured", "25.0.1");
		install("jvm/temurin-26", "26.0.1");
		JavaInstallations installations = new JavaInstallations(Map.of("JAVA_HOME", home.toString()),
				this.root.resolve("user"), List.of(this.root.resolve("jvm")));
		assertThat(installations.first(25)).get().extracting(JavaInstallations.Installation::home).isEqualTo(home);
	}

	@Test
	void anOlderJavaHomeIsPassedOverForTheToolchainsJdk() throws IOException {
		Path old = install("java-17", "17.0.15");
		Path toolchain = install("tools/jdk-25", "25.0.3");
		Path user = Files.createDirectories(this.root.resolve("user/.m2"));
		Files.writeString(user.resolve("toolchains.xml"),
				"""
						<toolchains>
						  <toolchain><type>jdk</type><configuration><jdkHome>${env.JAVA_HOME}</jdkHome></configuration></toolchain>
						  <toolchain><type>jdk</type><configuration>
						    <jdkHome>
						      %s
						    </jdkHome>
						  </configuration></toolchain>
						</toolchains>
						"""
					.formatted(toolchain));
		JavaInstallations installations = new JavaInstallations(Map.of("JAVA_HOME", old.toString()),
				this.root.resolve("user"), List.of());
		assertThat(installations.first(25)).get().extracting(JavaInstallations.Installation::home).isEqualTo(toolchain);
		assertThat(installations.all()).extracting(JavaInstallations.Installation::feature).containsExactly(17, 25);
	}

	@Test
	void theBuildsDiscoveryCacheAndJavaVersionVariablesCount() throws IOException {
		Path cached = install("cached/jdk", "25.0.2");
		Path variable = install("variable/jdk", "25.0.1");
		Files.createDirectories(this.root.resolve("user/.m2"));
		Files.writeString(this.root.resolve("user/.m2/discovered-jdk-toolchains-cache.xml"),
				"<toolchains><toolchain><configuration><jdkHome>" + cached + "</jdkHome></configuration></toolchain>"
						+ "</toolchains>");
		JavaInstallations installations = new JavaInstallations(Map.of("JAVA_HOME_25_X64", variable.toString()),
				this.root.resolve("user"), List.of());
		assertThat(installations.all()).extracting(JavaInstallations.Installation::home)
			.containsExactly(variable, cached);
	}

	@Test
	void amongInstalledJavasTheNewestIsTakenWhateverTheLayout() throws IOException {
		install("jvm/java-17-openjdk-amd64", "17.0.15");
		install("jvm/temurin-25-jdk", "25.0.9");
		Path newest = install("jvm/temurin-25.0.10.jdk/Contents/Home", "25.0.10");
		install("jvm/java-8", "1.8.0_402");
		Files.createDirectories(this.root.resolve("jvm/not-a-java/bin"));
		JavaInstallations installations = new JavaInstallations(Map.of(), this.root.resolve("user"),
				List.of(this.root.resolve("jvm"), this.root.resolve("absent")));
		assertThat(installations.all()).extracting(JavaInstallations.Installation::version)
			.containsExactly("25.0.10", "25.0.9", "17.0.15", "1.8.0_402");
		assertThat(installations.first(25)).get().extracting(JavaInstallations.Installation::home).isEqualTo(newest);
	}

	@Test
	void withNothingNewEnoughThereIsNone() throws IOException {
		Path old = install("jvm/java-21", "21.0.5");
		JavaInstallations installations = new JavaInstallations(Map.of("JAVA_HOME", old.toString()),
				this.root.resolve("user"), List.of(this.root.resolve("jvm")));
		assertThat(installations.all()).hasSize(1);
		assertThat(installations.first(25)).isEmpty();
	}

	@Test
	void featureVersionsOfBothNumberingSchemes() {
		assertThat(JavaInstallations.feature("25.0.3")).isEqualTo(25);
		assertThat(JavaInstallations.feature("25")).isEqualTo(25);
		assertThat(JavaInstallations.feature("26-ea")).isEqualTo(26);
		assertThat(JavaInstallations.feature("1.8.0_402")).isEqualTo(8);
	}

	/** A Java installation as far as finding it goes: a release file and bin/java. */
	private Path install(String path, String version) throws IOException {
		Path home = Files.createDirectories(this.root.resolve(path));
		Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"" + version + "\"\n");
		Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
		Files.writeString(java, "#!/bin/sh\n");
		assertThat(java.toFile().setExecutable(true)).isTrue();
		return home;
	}

}
