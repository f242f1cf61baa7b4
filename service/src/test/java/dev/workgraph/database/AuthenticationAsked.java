package dev.workgraph.database;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * What PostgreSQL asks of a client that has sent only its startup message (protocol 3.0):
 * to prove a password, or nothing at all. Speaks the protocol itself, so that the
 * server's Unix socket can be tried as well as TCP (the JDBC driver has no sockets).
 */
final class AuthenticationAsked {

	/** {@code AuthenticationOk} at once: the server trusts whoever connects. */
	static final String NOTHING = "nothing";

	/** {@code AuthenticationSASL}: SCRAM, a password proved without sending it. */
	static final String SCRAM = "SCRAM";

	private AuthenticationAsked() {
	}

	static String overTcp(int port, String user) throws IOException {
		return of(new java.net.InetSocketAddress("127.0.0.1", port), StandardProtocolFamily.INET, user);
	}

	static String overSocket(java.nio.file.Path socket, String user) throws IOException {
		return of(UnixDomainSocketAddress.of(socket), StandardProtocolFamily.UNIX, user);
	}

	private static String of(SocketAddress address, StandardProtocolFamily family, String user) throws IOException {
		try (SocketChannel channel = SocketChannel.open(family)) {
			channel.connect(address);
			byte[] parameters = ("user\0" + user + "\0database\0postgres\0\0").getBytes(StandardCharsets.UTF_8);
			ByteBuffer startup = ByteBuffer.allocate(8 + parameters.length);
			startup.putInt(8 + parameters.length).putInt(196608).put(parameters).flip();
			while (startup.hasRemaining()) {
				channel.write(startup);
			}
			ByteBuffer header = read(channel, 5);
			byte type = header.get();
			ByteBuffer body = read(channel, header.getInt() - 4);
			if (type == 'E') {
				return "refused: " + StandardCharsets.UTF_8.decode(body).toString().replace('\0', ' ').strip();
			}
			int request = body.getInt();
			return switch (request) {
				case 0 -> NOTHING;
				case 3 -> "a clear-text password";
				case 5 -> "an MD5 password";
				case 10 -> SCRAM;
				default -> "authentication request " + request;
			};
		}
	}

	private static ByteBuffer read(SocketChannel channel, int length) throws IOException {
		ByteBuffer buffer = ByteBuffer.allocate(length);
		while (buffer.hasRemaining()) {
			if (channel.read(buffer) < 0) {
				throw new IOException("the server closed the connection");
			}
		}
		return buffer.flip();
	}

}
