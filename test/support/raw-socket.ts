/**
 * Raw HTTP over a socket, for tests that send bytes `fetch` cannot (non-ASCII header values) or
 * must read an answer byte for byte.
 */
import net from 'node:net';

/** Writes `bytes` to 127.0.0.1:port and reads the whole answer (until the server closes). */
export function rawExchange(port: number, bytes: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
  });
}
