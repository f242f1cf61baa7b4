package dev.workgraph.notification;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

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
 * The instance's one {@code LISTEN} session, which passes each notification to the
 * {@link ChannelSubscriber}s of its channel: items becoming ready for the waiting claims,
 * token revocations for the token memory (which confirms each once forgotten), the other
 * instances' confirmations for the revocations in flight. One dedicated connection per
 * instance, outside the request pool: a session that {@code LISTEN}s must stay the same
 * session, which a pool (or a pooler in transaction mode) cannot promise, and it would
 * hold a pool connection for ever. Notifications are sent by triggers and statements of
 * any instance, so they reach the subscribers of every instance.
 *
 * <p>
 * When the connection breaks (PostgreSQL restarted, the session terminated) the listener
 * reconnects with a doubling pause, and once listening again tells every subscriber, so
 * that it checks again: notifications sent while nobody listened are gone. For the same
 * reason a subscriber hears when the session stops listening.
 */
@Component
public class NotificationListener implements SmartLifecycle {

	/**
	 * How the listening session shows in {@code pg_stat_activity}, so that an instance
	 * can find every other instance's listener.
	 */
	public static final String APPLICATION_NAME = "work-graph-listener";

	private static final String NOTIFY = "select pg_notify(?, ?)";

	private static final Logger log = LoggerFactory.getLogger(NotificationListener.class);

	/** How long one wait for notifications blocks; bounds how long stopping takes. */
	private static final int POLL_MILLIS = 500;

	/**
	 * How often the listener makes a round trip: subscribers that trust what they heard
	 * (the token memory) trust it only for a short while after the last one.
	 */
	private static final long ROUND_TRIP_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

	/**
	 * A round trip that has not answered after this long breaks the connection (a network
	 * cut shows only so), and the listener reconnects.
	 */
	private static final int SOCKET_TIMEOUT_SECONDS = 10;

	private final List<ChannelSubscriber> subscribers;

	/** The subscribers of each channel. */
	private final Map<String, List<ChannelSubscriber>> channels = new HashMap<>();

	private final NotificationProperties properties;

	private final JdbcConnectionDetails datasource;

	private volatile boolean running;

	private volatile boolean listening;

	private Thread thread;

	NotificationListener(List<ChannelSubscriber> subscribers, NotificationProperties properties,
			JdbcConnectionDetails datasource) {
		this.subscribers = List.copyOf(subscribers);
		this.properties = properties;
		this.datasource = datasource;
		for (ChannelSubscriber subscriber : this.subscribers) {
			subscriber.channels()
				.forEach((channel) -> this.channels.computeIfAbsent(channel, (c) -> new ArrayList<>()).add(subscriber));
		}
	}

	@Override
	public void start() {
		this.subscribers.forEach(ChannelSubscriber::starting);
		this.running = true;
		this.thread = Thread.ofPlatform().name("ready-listener").daemon().start(this::listenUntilStopped);
	}

	@Override
	public void stop() {
		this.running = false;
		// Stopped before the web server's graceful shutdown: waiting claims answer 204
		// now instead of holding it up.
		this.subscribers.forEach(ChannelSubscriber::stopping);
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
	public boolean isListening() {
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
				log.warn("The listening session lost its connection ({}); reconnecting in {} ms", ex.getMessage(),
						delay);
			}
			finally {
				this.subscribers.forEach(ChannelSubscriber::notListening);
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
			for (String channel : this.channels.keySet()) {
				statement.execute("listen " + channel);
			}
			// Listening, then found by other instances (revocations wait for this
			// session from now on), then trusted.
			statement.execute(ListenerSessions.FORGET_GONE);
			statement.execute(ListenerSessions.REGISTER);
		}
		this.listening = true;
		registered(connection.unwrap(PGConnection.class).getBackendPID());
	}

	private void registered(int backendPid) {
		this.subscribers.forEach((subscriber) -> subscriber.listeningAs(backendPid));
		// Listening from here on; what was notified before is found by a re-check.
		this.subscribers.forEach(ChannelSubscriber::listening);
	}

	/** Passes notifications on until the connection breaks or the listener stops. */
	private void relay(Connection connection) throws SQLException {
		PGConnection notifications = connection.unwrap(PGConnection.class);
		ChannelSubscriber.Session session = new ChannelSubscriber.Session() {

			@Override
			public int backendPid() {
				return notifications.getBackendPID();
			}

			@Override
			public void notify(String channel, String payload) throws SQLException {
				try (PreparedStatement notify = connection.prepareStatement(NOTIFY)) {
					notify.setString(1, channel);
					notify.setString(2, payload);
					notify.execute();
				}
			}

		};
		RoundTrips roundTrips = new RoundTrips();
		roundTrip(connection, session, notifications, roundTrips);
		while (this.running) {
			dispatchAll(session, notifications.getNotifications(POLL_MILLIS));
			if (System.nanoTime() - roundTrips.sentAt >= ROUND_TRIP_NANOS) {
				roundTrip(connection, session, notifications, roundTrips);
			}
		}
	}

	/**
	 * One round trip, which also shows a connection lost without a word (a network cut):
	 * every notification committed before it started arrives with its answer; once they
	 * are passed on, subscribers hear of it, and the next round trip records the time it
	 * started as the time up to which this instance has acted on every notification.
	 */
	private void roundTrip(Connection connection, ChannelSubscriber.Session session, PGConnection notifications,
			RoundTrips roundTrips) throws SQLException {
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
		roundTrips.sentAt = sentAt;
		if (started == null) {
			// Unregistered (the table was emptied): what was heard since may have gone
			// unconfirmed, so subscribers start over once registered again.
			try (Statement statement = connection.createStatement()) {
				statement.execute(ListenerSessions.REGISTER);
			}
			registered(notifications.getBackendPID());
			return;
		}
		dispatchAll(session, notifications.getNotifications());
		this.subscribers.forEach((subscriber) -> subscriber.roundTrip(sentAt));
		roundTrips.confirmable = started;
	}

	private void dispatchAll(ChannelSubscriber.Session session, PGNotification[] received) throws SQLException {
		if (received != null) {
			for (PGNotification notification : received) {
				dispatch(session, notification);
			}
		}
	}

	/** The listener's last round trip. */
	private static final class RoundTrips {

		/** When it was sent (System.nanoTime). */
		long sentAt;

		/** Its start on the database's clock: what the next one records as confirmed. */
		Timestamp confirmable;

	}

	private void dispatch(ChannelSubscriber.Session session, PGNotification notification) throws SQLException {
		for (ChannelSubscriber subscriber : this.channels.getOrDefault(notification.getName(), List.of())) {
			subscriber.notified(notification.getName(), notification.getParameter(), session);
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
		settings.setProperty("ApplicationName", APPLICATION_NAME);
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
