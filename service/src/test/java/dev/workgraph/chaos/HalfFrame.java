package dev.workgraph.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;

/**
 * A worker stream cut in the middle of a frame, which no WebSocket library will send: a
 * raw TCP connection upgraded by hand (RFC 6455), then the header of a masked text frame
 * announcing the whole message, half of its bytes, and a reset. The service must act on
 * none of it.
 */
final class HalfFrame {

	private HalfFrame() {
	}

	/**
	 * Opens a stream as the worker (its token, null without access control), sends half
	 * of one frame carrying {@code message}, and resets the connection. False when the
	 * upgrade was not accepted (the instance is down, say): nothing was sent then.
	 */
	static boolean send(ServiceInstance instance, String token, String message, Random random) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", instance.port()), 2_000);
			socket.setSoTimeout(5_000);
			byte[] nonce = new byte[16];
			random.nextBytes(nonce);
			String handshake = "GET /worker-stream HTTP/1.1\r\nHost: 127.0.0.1:" + instance.port()
					+ "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
					+ "Sec-WebSocket-Key: " + Base64.getEncoder().encodeToString(nonce) + "\r\n"
					+ ((token != null) ? "Authorization: Bearer " + token + "\r\n" : "") + "\r\n";
			OutputStream out = socket.getOutputStream();
			out.write(handshake.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			if (!upgraded(socket.getInputStream())) {
				return false;
			}
			byte[] payload = message.getBytes(StandardCharsets.UTF_8);
			byte[] mask = new byte[4];
			random.nextBytes(mask);
			byte[] frame = new byte[8 + payload.length / 2];
			frame[0] = (byte) 0x81; // FIN, text
			frame[1] = (byte) (0x80 | 126); // masked, 16-bit length
			frame[2] = (byte) (payload.length >>> 8);
			frame[3] = (byte) payload.length;
			System.arraycopy(mask, 0, frame, 4, 4);
			for (int i = 0; i < payload.length / 2; i++) {
				frame[8 + i] = (byte) (payload[i] ^ mask[i % 4]);
			}
			out.write(frame);
			out.flush();
			// A reset, not a FIN: the connection just goes.
			socket.setSoLinger(true, 0);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/** Reads the upgrade's answer up to its blank line: {@code 101} or not. */
	private static boolean upgraded(InputStream in) throws IOException {
		StringBuilder head = new StringBuilder();
		int b;
		while ((b = in.read()) != -1) {
			head.append((char) b);
			if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
				break;
			}
		}
		return head.toString().startsWith("HTTP/1.1 101");
	}

}
