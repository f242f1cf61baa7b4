package dev.workgraph.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium driven through its chromedriver. Without them the browser
 * tests are skipped, except under {@code CI=true}, where a missing browser is a failure
 * ({@code .ci/run} installs both).
 */
final class Browser implements AutoCloseable {

	private static final Path CHROMIUM = Path.of(System.getProperty("console.chromium", "/usr/bin/chromium"));

	private static final Path CHROMEDRIVER = Path
		.of(System.getProperty("console.chromedriver", "/usr/bin/chromedriver"));

	/**
	 * Where screenshots go when {@code -Dconsole.screenshots=true}; otherwise none are
	 * written, so that a normal build leaves the tree clean.
	 */
	private static final Path SCREENSHOTS = Path.of(System.getProperty("console.screenshots.dir", "../docs/console"));

	final ChromeDriver driver;

	private final Path profile;

	private Browser(ChromeDriver driver, Path profile) {
		this.driver = driver;
		this.profile = profile;
	}

	static Browser start() {
		boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
		if (!present) {
			String missing = "Chromium (" + CHROMIUM + ") and chromedriver (" + CHROMEDRIVER
					+ ") are needed: apt-get install chromium chromium-driver";
			if ("true".equalsIgnoreCase(System.getenv("CI"))) {
				Assertions.fail(missing);
			}
			Assumptions.abort(missing);
		}
		try {
			Path profile = Files.createTempDirectory("workgraph-console-chromium");
			ChromeOptions options = new ChromeOptions();
			options.setBinary(CHROMIUM.toFile());
			options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
					"--disable-background-networking", "--disable-component-update", "--disable-sync",
					"--disable-dev-shm-usage", "--window-size=1280,900", "--user-data-dir=" + profile);
			ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
				.usingAnyFreePort()
				.build();
			ChromeDriver driver = new ChromeDriver(service, options);
			driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
			driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
			return new Browser(driver, profile);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Saves the page as docs/console/{name}.png, only when asked to. */
	void screenshot(String name) {
		if (!Boolean.getBoolean("console.screenshots")) {
			return;
		}
		try {
			Files.createDirectories(SCREENSHOTS);
			Path shot = this.driver.getScreenshotAs(OutputType.FILE).toPath();
			Files.copy(shot, SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() {
		try {
			this.driver.quit();
		}
		finally {
			try (Stream<Path> files = Files.walk(this.profile)) {
				files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
			catch (IOException ex) {
				// A leftover temporary profile is harmless.
			}
		}
	}

}
