package dev.workgraph.notification;

import java.sql.SQLException;
import java.util.List;

/**
 * What hears notifications on the instance's one listening session
 * ({@link NotificationListener}): the channels it subscribes to, and what it does when
 * one arrives or when the session starts or stops listening. Called on the listener's
 * thread, one notification after another, so a subscriber answers quickly.
 */
public interface ChannelSubscriber {

	/** The channels this subscriber hears. */
	List<String> channels();

	/**
	 * A notification on one of {@link #channels()}; {@code session} may answer on the
	 * same session (a confirmation other instances wait for).
	 */
	void notified(String channel, String payload, Session session) throws SQLException;

	/**
	 * The session listens from now on: what was notified before went unheard, so whatever
	 * relied on it is to be checked again.
	 */
	default void listening() {
	}

	/**
	 * The session, backend {@code backendPid}, listens and is registered, so that other
	 * instances find it; {@link #listening()} follows.
	 */
	default void listeningAs(int backendPid) {
	}

	/**
	 * The session made a round trip, sent at {@code sentAt} (System.nanoTime), and every
	 * notification that came with it was passed on.
	 */
	default void roundTrip(long sentAt) {
	}

	/** The session lost its connection: notifications may go unheard until it is back. */
	default void notListening() {
	}

	/** The listener starts (also again after a stop, in a restarted context). */
	default void starting() {
	}

	/**
	 * The listener stops, before the web server's graceful shutdown: whatever waits for a
	 * notification is to stop waiting now.
	 */
	default void stopping() {
	}

	/** The listening session, to answer on. */
	interface Session {

		/** The process id of the listening session's backend. */
		int backendPid() throws SQLException;

		/** Sends {@code payload} on {@code channel} from the listening session. */
		void notify(String channel, String payload) throws SQLException;

	}

}
