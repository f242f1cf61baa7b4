package dev.workgraph;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.web.bind.annotation.RestController;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/** The house rules that a compiler does not check. */
class ArchitectureTests {

	private static final JavaClasses SERVICE = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("dev.workgraph");

	/** The features that change state, and the HTTP plumbing. */
	private static final String[] WRITE_SIDE = { "dev.workgraph.item..", "dev.workgraph.lease..",
			"dev.workgraph.attention..", "dev.workgraph.audit..", "dev.workgraph.web.." };

	@Test
	void featurePackagesDoNotDependOnEachOtherInCycles() {
		slices().matching("dev.workgraph.(*)..").should().beFreeOfCycles().check(SERVICE);
	}

	@Test
	void theReadSideDependsOnNoFeature() {
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
			.resideInAnyPackage("dev.workgraph.view..", "dev.workgraph.web..", "dev.workgraph.problem..")
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

	@Test
	void controllersArePackagePrivate() {
		classes().that().areAnnotatedWith(RestController.class).should().notBePublic().check(SERVICE);
	}

}
