package dev.workgraph.notification;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

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

	/** A silent connection is checked with a round trip after this many empty polls. */
	private static final int POLLS_BETWEEN_CHECKS = 60;

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
		}
		this.listening = true;
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
		int silentPolls = 0;
		while (this.running) {
			PGNotification[] received = notifications.getNotifications(POLL_MILLIS);
			if (received != null && received.length > 0) {
				silentPolls = 0;
				for (PGNotification notification : received) {
					dispatch(session, notification);
				}
			}
			else if (++silentPolls >= POLLS_BETWEEN_CHECKS) {
				// A connection lost without a word (a network cut) shows only when used.
				silentPolls = 0;
				if (!connection.isValid(5)) {
					throw new SQLException("the listening connection stopped answering");
				}
			}
		}
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
