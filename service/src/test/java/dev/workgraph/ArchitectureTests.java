package dev.workgraph;

import java.sql.DriverManager;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.web.bind.annotation.RestController;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The house rules that a compiler does not check: which package may use which (see
 * docs/architecture.md), where SQL runs, what is public.
 */
class ArchitectureTests {

	private static final JavaClasses SERVICE = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("dev.workgraph");

	/** The features that change state, and the HTTP plumbing. */
	private static final String[] WRITE_SIDE = { "dev.workgraph.item..", "dev.workgraph.lease..",
			"dev.workgraph.attention..", "dev.workgraph.audit..", "dev.workgraph.web..", "dev.workgraph.access.." };

	/** What every feature may use, and which uses none of them. */
	private static final String[] SHARED = { "dev.workgraph.model..", "dev.workgraph.problem..",
			"dev.workgraph.validation..", "dev.workgraph.sql..", "dev.workgraph.database..", "dev.workgraph.metrics..",
			"dev.workgraph.tracing.." };

	@Test
	void packagesDoNotDependOnEachOtherInCycles() {
		slices().matching("dev.workgraph.(*)..").should().beFreeOfCycles().check(SERVICE);
	}

	@Test
	void theReadSideDependsOnNoWriteSideFeature() {
		noClasses().that()
			.resideInAPackage("dev.workgraph.view..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(WRITE_SIDE)
			.check(SERVICE);
	}

	@Test
	void theSharedModelDependsOnNoFeatureAndNotOnTheReadSide() {
		noClasses().that()
			.resideInAPackage("dev.workgraph.model..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(WRITE_SIDE)
			.orShould()
			.dependOnClassesThat()
			.resideInAPackage("dev.workgraph.view..")
			.check(SERVICE);
	}

	@Test
	void eachSharedPackageStandsAlone() {
		for (String shared : SHARED) {
			classes().that()
				.resideInAPackage(shared)
				.should()
				.onlyDependOnClassesThat(resideOutsideOfPackage("dev.workgraph..").or(resideInAPackage(shared)))
				.check(SERVICE);
		}
	}

	@Test
	void theHttpPlumbingDependsOnNoFeature() {
		noClasses().that()
			.resideInAPackage("dev.workgraph.web..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.workgraph.item..", "dev.workgraph.lease..", "dev.workgraph.attention..",
					"dev.workgraph.audit..", "dev.workgraph.view..", "dev.workgraph.access..")
			.check(SERVICE);
	}

	/**
	 * The MCP server reaches the features only through the HTTP API (docs/adr/0020), so
	 * that a tool call is validated and fenced by the code that answers the same call
	 * over HTTP.
	 */
	@Test
	void theMcpServerUsesNoFeatureButAccess() {
		noClasses().that()
			.resideInAPackage("dev.workgraph.mcp..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.workgraph.item..", "dev.workgraph.lease..", "dev.workgraph.attention..",
					"dev.workgraph.audit..", "dev.workgraph.view..", "dev.workgraph.web..")
			.check(SERVICE);
	}

	/** Access depends on no feature: every feature may ask it who is calling. */
	@Test
	void accessDependsOnNoFeature() {
		noClasses().that()
			.resideInAPackage("dev.workgraph.access..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.workgraph.item..", "dev.workgraph.lease..", "dev.workgraph.attention..",
					"dev.workgraph.audit..", "dev.workgraph.view..", "dev.workgraph.web..")
			.check(SERVICE);
	}

	/**
	 * The batching machinery serves whatever it is given: it knows no feature and may use
	 * only the problem answers.
	 */
	@Test
	void batchingKnowsNoFeature() {
		classes().that()
			.resideInAPackage("dev.workgraph.batching..")
			.should()
			.onlyDependOnClassesThat(resideOutsideOfPackage("dev.workgraph..")
				.or(resideInAnyPackage("dev.workgraph.batching..", "dev.workgraph.problem..")))
			.check(SERVICE);
	}

	/**
	 * The rooms of {@code lease}: the root (fencing, history, holders) is what they share
	 * and depends on none of them; claiming and expiry stand on the root alone; ending
	 * uses claiming (a completion may claim next).
	 */
	@Test
	void theLeaseRootDependsOnNoRoomOfLease() {
		noClasses().that()
			.resideInAPackage("dev.workgraph.lease")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.workgraph.lease.claim..", "dev.workgraph.lease.ending..",
					"dev.workgraph.lease.expiry..")
			.check(SERVICE);
	}

	@Test
	void claimingAndExpiryDependOnNoOtherRoomOfLease() {
		noClasses().that()
			.resideInAPackage("dev.workgraph.lease.claim..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.workgraph.lease.ending..", "dev.workgraph.lease.expiry..")
			.check(SERVICE);
		noClasses().that()
			.resideInAPackage("dev.workgraph.lease.expiry..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.workgraph.lease.claim..", "dev.workgraph.lease.ending..")
			.check(SERVICE);
	}

	@Test
	void otherFeaturesUseNoRoomOfLeaseButExpiry() {
		noClasses().that()
			.resideOutsideOfPackage("dev.workgraph.lease..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.workgraph.lease.claim..", "dev.workgraph.lease.ending..")
			.check(SERVICE);
	}

	/**
	 * The launcher runs on Java 17, before it knows whether the service can run: the JDK
	 * is all it may use (the service's classes need Java 25).
	 */
	@Test
	void theLauncherUsesTheJdkAlone() {
		classes().that()
			.resideInAPackage("dev.workgraph.launcher..")
			.should()
			.onlyDependOnClassesThat()
			.resideInAnyPackage("java..", "dev.workgraph.launcher..")
			.check(SERVICE);
	}

	@Test
	void onlyRepositoriesRunSql() {
		noClasses().that()
			.areNotAnnotatedWith(Repository.class)
			.should()
			.dependOnClassesThat()
			.areAssignableTo(JdbcClient.class)
			.check(SERVICE);
	}

	/**
	 * Besides the pool, the service opens one connection of its own: the listening
	 * session, which must stay the same session for as long as it listens.
	 */
	@Test
	void onlyTheListenerOpensConnectionsOutsideThePool() {
		noClasses().that()
			.resideOutsideOfPackage("dev.workgraph.notification..")
			.should()
			.dependOnClassesThat()
			.areAssignableTo(DriverManager.class)
			.check(SERVICE);
	}

	@Test
	void controllersArePackagePrivate() {
		classes().that().areAnnotatedWith(RestController.class).should().notBePublic().check(SERVICE);
	}

	/**
	 * Other features change items only through item's own API (creation, readiness,
	 * cancellation), never through its statements.
	 */
	@Test
	void itemsRepositoriesStayInsideItem() {
		classes().that()
			.resideInAPackage("dev.workgraph.item..")
			.and()
			.areAnnotatedWith(Repository.class)
			.should()
			.notBePublic()
			.andShould()
			.onlyBeAccessed()
			.byClassesThat()
			.resideInAPackage("dev.workgraph.item..")
			.check(SERVICE);
	}

}
