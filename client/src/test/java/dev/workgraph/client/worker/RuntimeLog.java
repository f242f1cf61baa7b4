package dev.workgraph.client.worker;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * What the worker runtime logs while this is open, as {@code LEVEL message} lines (with
 * {@code | exception} when one is logged with the message). Its {@link System.Logger}
 * reaches {@code java.util.logging} here, as in an application without a logging library.
 */
final class RuntimeLog implements AutoCloseable {

	private final Logger logger = Logger.getLogger("dev.workgraph.client.worker");

	private final List<String> lines = new CopyOnWriteArrayList<>();

	private final Handler handler = new Handler() {

		private final SimpleFormatter formatter = new SimpleFormatter();

		@Override
		public void publish(LogRecord record) {
			RuntimeLog.this.lines.add(record.getLevel() + " " + this.formatter.formatMessage(record)
					+ ((record.getThrown() != null) ? " | " + record.getThrown() : ""));
		}

		@Override
		public void flush() {
		}

		@Override
		public void close() {
		}

	};

	private RuntimeLog() {
		this.handler.setLevel(Level.ALL);
		this.logger.addHandler(this.handler);
	}

	static RuntimeLog capture() {
		return new RuntimeLog();
	}

	/** The lines that contain this text. */
	List<String> mentioning(String text) {
		return this.lines.stream().filter((line) -> line.contains(text)).toList();
	}

	@Override
	public void close() {
		this.logger.removeHandler(this.handler);
	}

}
