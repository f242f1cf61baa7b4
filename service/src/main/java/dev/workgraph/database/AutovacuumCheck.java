package dev.workgraph.database;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

/**
 * Warns at start-up when autovacuum will not analyze the items. The service vacuums its
 * two queue tables itself, but leaves every table's statistics to autovacuum. A pooled
 * connection keeps the plans of the frequent statements (and PostgreSQL's foreign-key
 * checks) until statistics change, so without autovacuum the plans made while a table was
 * small stay until the pool replaces the connection: on a service started on an empty
 * database, every item view and every row referring to an item read all of
 * {@code work_items}. PostgreSQL's defaults never warn; the check never stops start-up.
 */
@Component
class AutovacuumCheck implements ApplicationRunner {

	private static final Logger log = LoggerFactory.getLogger(AutovacuumCheck.class);

	private final AutovacuumSettings settings;

	AutovacuumCheck(AutovacuumSettings settings) {
		this.settings = settings;
	}

	@Override
	public void run(ApplicationArguments args) {
		try {
			this.settings.read().warning().ifPresent(log::warn);
		}
		catch (DataAccessException ex) {
			log.debug("Could not read the autovacuum settings", ex);
		}
	}

}
