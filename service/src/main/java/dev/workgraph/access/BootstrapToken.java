package dev.workgraph.access;

import dev.workgraph.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * A fresh service with access control on must not lock its operator out: when no token
 * exists and none is configured, it creates one admin token at start-up and prints it,
 * once, on a log line of its own with how to use it. That is the only log line a token
 * ever appears on. Every later start says how an operator who lost the admin token gets
 * back in: a configured bootstrap token. Instances starting together take turns (an
 * advisory lock), so only one of them creates it.
 */
@Component
class BootstrapToken implements ApplicationRunner {

	private static final Logger log = LoggerFactory.getLogger(BootstrapToken.class);

	private final AccessProperties properties;

	private final Tokens tokens;

	private final Transactions transactions;

	BootstrapToken(AccessProperties properties, Tokens tokens, Transactions transactions) {
		this.properties = properties;
		this.tokens = tokens;
		this.transactions = transactions;
	}

	@Override
	public void run(ApplicationArguments args) {
		if (!this.properties.enabled()) {
			log.warn("Access control is off (workgraph.security.enabled=false): anyone who can reach this port "
					+ "may do anything. Use this for local experiments only.");
			return;
		}
		if (this.properties.bootstrapAdminToken() != null) {
			log.info("Access control is on; the configured bootstrap admin token is accepted (named bootstrap)");
			return;
		}
		String secret = this.transactions.inTransaction(() -> {
			if (this.tokens.anyTokenUnderBootstrapLock()) {
				return null;
			}
			String created = TokenSecrets.newSecret();
			this.tokens.insert(TokenIntrospector.BOOTSTRAP_NAME, Role.ADMIN, null, null, false, null,
					TokenSecrets.hash(created));
			return created;
		});
		if (secret == null) {
			log.info("Access control is on; tokens exist (an admin manages them with /tokens). Lost every admin "
					+ "token? Restart with WORKGRAPH_SECURITY_BOOTSTRAP_ADMIN_TOKEN set to a random secret of at least "
					+ "{} characters: while it is set it is accepted as an admin token named bootstrap, with which you "
					+ "create a new admin token (POST /tokens) and revoke the lost one; then restart without it.",
					AccessProperties.MIN_BOOTSTRAP_TOKEN_LENGTH);
			return;
		}
		log.warn("No token existed, so an admin token named bootstrap was created. It is shown this once; "
				+ "send it as 'Authorization: Bearer <token>' (e.g. export WG_ADMIN_TOKEN=<token>) and create "
				+ "other tokens with POST /tokens. Admin token: {}", secret);
	}

}
