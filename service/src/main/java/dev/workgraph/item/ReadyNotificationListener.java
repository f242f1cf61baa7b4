package dev.workgraph.item;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.workgraph.access.Revocations;
import dev.workgraph.access.TokenMemory;
import dev.workgraph.sql.ListenerSessions;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import org.springframework.util.StringUtils;

/**
 * Listens for items becoming ready and wakes the {@link ReadyWaiters}; on the same
 * session, hears token revocations for the {@link TokenMemory} (and confirms each once
 * forgotten) and the other instances' confirmations for {@link Revocations}. One
 * dedicated connection per instance, outside the request pool: a session that
 * {@code LISTEN}s must stay the same session, which a pool (or a pooler in transaction
 * mode) cannot promise, and it would hold a pool connection for ever. The trigger of
 * migration V9 sends the queue name on {@value #CHANNEL} once per statement and queue, so
 * a notification from any instance reaches the waiters of every instance.
 *
 * <p>
 * When the connection breaks (PostgreSQL restarted, the session terminated) the listener
 * reconnects with a doubling pause, and once listening again wakes every waiter to
 * re-check: notifications sent while nobody listened are gone. For the same reason the
 * token memory is trusted only while the session listens, and only for a short while
 * after its last round trip (see {@link TokenMemory#TRUSTED_FOR}).
 */
@Component
class ReadyNotificationListener implements SmartLifecycle {

	static final String CHANNEL = "work_graph_ready";

	static final String CONFIRM_FORGOTTEN = "select pg_notify('" + Revocations.FORGOTTEN_CHANNEL + "', ?)";

	private static final Logger log = LoggerFactory.getLogger(ReadyNotificationListener.class);

	/** How long one wait for notifications blocks; bounds how long stopping takes. */
	private static final int POLL_MILLIS = 500;

	/**
	 * How often the listener makes a round trip: the token memory is trusted only for
	 * {@link TokenMemory#TRUSTED_FOR} after the last one, well over this.
	 */
	private static final long ROUND_TRIP_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

	/**
	 * A round trip that has not answered after this long breaks the connection (a network
	 * cut shows only so), and the listener reconnects.
	 */
	private static final int SOCKET_TIMEOUT_SECONDS = 10;

	private final ReadyWaiters waiters;

	private final NotificationProperties properties;

	private final JdbcConnectionDetails datasource;

	private final TokenMemory tokens;

	private final Revocations revocations;

	private volatile boolean running;

	private volatile boolean listening;

	private Thread thread;

	ReadyNotificationListener(ReadyWaiters waiters, NotificationProperties properties, JdbcConnectionDetails datasource,
			TokenMemory tokens, Revocations revocations) {
		this.waiters = waiters;
		this.properties = properties;
		this.datasource = datasource;
		this.tokens = tokens;
		this.revocations = revocations;
	}

	@Override
	public void start() {
		this.waiters.resumeWaiting();
		this.running = true;
		this.thread = Thread.ofPlatform().name("ready-listener").daemon().start(this::listenUntilStopped);
	}

	@Override
	public void stop() {
		this.running = false;
		// Stopped before the web server's graceful shutdown: waiting claims answer 204
		// now
		// instead of holding it up.
		this.waiters.stopWaiting();
		Thread listener = this.thread;
		if (listener != null) {
			listener.interrupt();
			try {
				listener.join(Duration.ofSeconds(5));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		this.listening = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Whether the listener is connected and listening (for tests and health). */
	boolean isListening() {
		return this.listening;
	}

	private void listenUntilStopped() {
		long delay = this.properties.minReconnectDelay().toMillis();
		while (this.running) {
			try (Connection connection = connect()) {
				listen(connection);
				delay = this.properties.minReconnectDelay().toMillis();
				relay(connection);
			}
			catch (SQLException ex) {
				if (!this.running) {
					break;
				}
				log.warn("The listener for ready items lost its connection ({}); reconnecting in {} ms",
						ex.getMessage(), delay);
			}
			finally {
				this.tokens.notListening();
				this.listening = false;
			}
			if (!sleep(delay)) {
				break;
			}
			delay = Math.min(delay * 2, this.properties.maxReconnectDelay().toMillis());
		}
	}

	private void listen(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute("listen " + CHANNEL);
			statement.execute("listen " + TokenMemory.REVOKED_CHANNEL);
			statement.execute("listen " + Revocations.FORGOTTEN_CHANNEL);
			// Listening, then found by other instances: revocations wait for this session
			// from now on. The memory is trusted only after that.
			statement.execute(ListenerSessions.FORGET_GONE);
			statement.execute(ListenerSessions.REGISTER);
		}
		this.tokens.listening(connection.unwrap(PGConnection.class).getBackendPID());
		this.listening = true;
		// Listening from here on; what became ready before is found by a re-check.
		this.waiters.recheckAll();
	}

	/**
	 * Passes notifications on until the connection breaks or the listener stops, with a
	 * round trip every {@link #ROUND_TRIP_NANOS}, and right after a revocation so that it
	 * is confirmed in the database at once.
	 */
	private void relay(Connection connection) throws SQLException {
		PGConnection notifications = connection.unwrap(PGConnection.class);
		RoundTrips roundTrips = new RoundTrips();
		roundTrip(connection, notifications, roundTrips);
		while (this.running) {
			boolean revoked = dispatchAll(connection, notifications, notifications.getNotifications(POLL_MILLIS));
			if (revoked || System.nanoTime() - roundTrips.sentAt >= ROUND_TRIP_NANOS) {
				roundTrip(connection, notifications, roundTrips);
				if (revoked) {
					// The second records the first: the revocation is now confirmed.
					roundTrip(connection, notifications, roundTrips);
				}
			}
		}
	}

	/**
	 * One round trip: every notification committed before it started arrives with its
	 * answer; once they are acted on, the token memory is trusted again for a while, and
	 * the next round trip records the time it started as confirmed.
	 */
	private void roundTrip(Connection connection, PGConnection notifications, RoundTrips roundTrips)
			throws SQLException {
		long sentAt = System.nanoTime();
		Timestamp started = null;
		try (PreparedStatement statement = connection.prepareStatement(ListenerSessions.ROUND_TRIP)) {
			statement.setTimestamp(1, roundTrips.confirmable);
			try (ResultSet answer = statement.executeQuery()) {
				if (answer.next()) {
					started = answer.getTimestamp(1);
				}
			}
		}
		if (started == null) {
			// Unregistered (the table was emptied): revocations since did not wait for
			// this instance, so it forgets everything once registered again.
			try (Statement statement = connection.createStatement()) {
				statement.execute(ListenerSessions.REGISTER);
			}
			this.tokens.listening(notifications.getBackendPID());
			roundTrips.sentAt = sentAt;
			return;
		}
		dispatchAll(connection, notifications, notifications.getNotifications());
		this.tokens.roundTrip(sentAt);
		roundTrips.sentAt = sentAt;
		roundTrips.confirmable = started;
	}

	/** Acts on the notifications; true if a revocation was among them. */
	private boolean dispatchAll(Connection connection, PGConnection notifications, PGNotification[] received)
			throws SQLException {
		boolean revoked = false;
		if (received != null) {
			for (PGNotification notification : received) {
				revoked |= TokenMemory.REVOKED_CHANNEL.equals(notification.getName());
				dispatch(connection, notifications.getBackendPID(), notification);
			}
		}
		return revoked;
	}

	/** The listener's last round trip. */
	private static final class RoundTrips {

		/** When it was sent (System.nanoTime). */
		long sentAt;

		/** Its start on the database's clock: what the next one records as confirmed. */
		Timestamp confirmable;

	}

	private void dispatch(Connection connection, int ownPid, PGNotification notification) throws SQLException {
		String payload = notification.getParameter();
		switch (notification.getName()) {
			case TokenMemory.REVOKED_CHANNEL -> {
				this.tokens.revoked(payload);
				endWaitsOf(payload);
				// Told only once forgotten: the revoking instance waits for this.
				try (PreparedStatement confirm = connection.prepareStatement(CONFIRM_FORGOTTEN)) {
					confirm.setString(1, ownPid + ":" + payload);
					confirm.execute();
				}
			}
			case Revocations.FORGOTTEN_CHANNEL -> this.revocations.forgotten(payload);
			default -> this.waiters.readyIn(payload);
		}
	}

	/**
	 * A revoked token's waiting claims end now (204); after '*' (every token), every
	 * waiting claim re-checks its token.
	 */
	private void endWaitsOf(String revoked) {
		try {
			this.waiters.endWaitsOf(UUID.fromString(revoked));
		}
		catch (IllegalArgumentException ex) {
			this.waiters.recheckAll();
		}
	}

	private Connection connect() throws SQLException {
		Properties settings = new Properties();
		settings.setProperty("user", orDatasource(this.properties.username(), this.datasource.getUsername()));
		String password = (this.properties.password() != null) ? this.properties.password()
				: this.datasource.getPassword();
		if (password != null) {
			settings.setProperty("password", password);
		}
		settings.setProperty("ApplicationName", ListenerSessions.APPLICATION_NAME);
		settings.setProperty("tcpKeepAlive", "true");
		settings.setProperty("connectTimeout", "5");
		settings.setProperty("socketTimeout", Integer.toString(SOCKET_TIMEOUT_SECONDS));
		return DriverManager.getConnection(orDatasource(this.properties.url(), this.datasource.getJdbcUrl()), settings);
	}

	private static String orDatasource(String own, String datasource) {
		return StringUtils.hasText(own) ? own : datasource;
	}

	private boolean sleep(long millis) {
		try {
			TimeUnit.MILLISECONDS.sleep(millis);
			return true;
		}
		catch (InterruptedException ex) {
			return false;
		}
	}

}
