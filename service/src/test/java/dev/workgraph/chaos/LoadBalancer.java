package dev.workgraph.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A small TCP load balancer in front of the service instances, as nginx's {@code stream}
 * proxy or a cloud load balancer would stand there: each new client connection goes to
 * the next instance in turn, and to the one after it when that one refuses the connection
 * (an instance that is down or restarting), so clients see one address however many
 * instances run. Connections to an instance that dies are cut, as they would be.
 */
final class LoadBalancer implements AutoCloseable {

	private final ServerSocket listener;

	private final List<ServiceInstance> instances;

	private final AtomicInteger next = new AtomicInteger();

	private final AtomicLongArray connections;

	private volatile boolean closed;

	LoadBalancer(List<ServiceInstance> instances) {
		this.instances = instances;
		this.connections = new AtomicLongArray(instances.size());
		try {
			this.listener = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Thread.ofVirtual().name("load-balancer").start(this::accept);
	}

	String base() {
		return "http://127.0.0.1:" + this.listener.getLocalPort();
	}

	/** Client connections handed to each instance so far. */
	long[] connectionsPerInstance() {
		long[] counts = new long[this.connections.length()];
		for (int i = 0; i < counts.length; i++) {
			counts[i] = this.connections.get(i);
		}
		return counts;
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.listener.accept();
				Thread.ofVirtual().start(() -> forward(client));
			}
			catch (IOException ex) {
				if (!this.closed) {
					System.err.println("load balancer: accept failed: " + ex.getMessage());
				}
			}
		}
	}

	private void forward(Socket client) {
		Socket upstream = connectUpstream();
		if (upstream == null) {
			close(client);
			return;
		}
		Thread.ofVirtual().start(() -> pump(client, upstream));
		pump(upstream, client);
	}

	/** The next instance that accepts a connection, or null when none does. */
	private Socket connectUpstream() {
		int size = this.instances.size();
		int first = Math.floorMod(this.next.getAndIncrement(), size);
		for (int i = 0; i < size; i++) {
			int index = (first + i) % size;
			Socket upstream = new Socket();
			try {
				upstream.connect(new InetSocketAddress("127.0.0.1", this.instances.get(index).port()), 1000);
				upstream.setTcpNoDelay(true);
				this.connections.incrementAndGet(index);
				return upstream;
			}
			catch (IOException ex) {
				close(upstream);
			}
		}
		return null;
	}

	/** Copies one direction until it ends, then closes both sides. */
	private static void pump(Socket from, Socket to) {
		byte[] buffer = new byte[16 * 1024];
		try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
			int read;
			while ((read = in.read(buffer)) >= 0) {
				out.write(buffer, 0, read);
				out.flush();
			}
		}
		catch (IOException ex) {
			// A side went away: the other is closed below, as a proxy would.
		}
		finally {
			close(from);
			close(to);
		}
	}

	private static void close(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Already closed.
		}
	}

	@Override
	public void close() {
		this.closed = true;
		try {
			this.listener.close();
		}
		catch (IOException ex) {
			// Already closed.
		}
	}

}
