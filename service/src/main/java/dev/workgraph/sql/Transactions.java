package dev.workgraph.sql;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs a unit of work in one READ COMMITTED transaction and retries it when PostgreSQL
 * aborts it as a deadlock victim or a serialization failure. Hot paths lock rows in a
 * consistent order so that this never happens there; the retry covers the rare paths (an
 * operator cancelling a subtree while items in it complete) where no single order exists.
 * A retried attempt starts from scratch: the aborted one wrote nothing.
 */
@Component
public class Transactions {

	private static final Logger log = LoggerFactory.getLogger(Transactions.class);

	private static final int MAX_ATTEMPTS = 5;

	private final TransactionTemplate template;

	private final TransactionTemplate savepoint;

	public Transactions(PlatformTransactionManager transactionManager) {
		this.template = new TransactionTemplate(transactionManager);
		this.savepoint = new TransactionTemplate(transactionManager);
		this.savepoint.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
	}

	public <T> T inTransaction(Supplier<T> work) {
		return retryingLockRaces(() -> this.template.execute((status) -> work.get()));
	}

	/**
	 * Runs a step of the caller's transaction behind a savepoint: when the step throws,
	 * what it wrote is undone and its exception thrown, and the caller's transaction can
	 * go on and commit what came before. Not retried: a lock race lost here is the
	 * caller's to answer.
	 */
	public <T> T inSavepoint(Supplier<T> step) {
		return this.savepoint.execute((status) -> step.get());
	}

	/**
	 * Runs the work (a transaction, or one statement in autocommit) again when PostgreSQL
	 * aborted it as a deadlock victim or a serialization failure.
	 */
	public <T> T retryingLockRaces(Supplier<T> work) {
		for (int attempt = 1;; attempt++) {
			try {
				return work.get();
			}
			catch (ConcurrencyFailureException ex) {
				if (attempt == MAX_ATTEMPTS) {
					throw ex;
				}
				log.debug("Transaction attempt {} lost a lock race, retrying: {}", attempt, ex.getMessage());
				LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_000_000L << attempt));
			}
		}
	}

	public void inTransaction(Runnable work) {
		inTransaction(() -> {
			work.run();
			return null;
		});
	}

}
