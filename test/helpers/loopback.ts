// A test HTTP server on 127.0.0.1 (an ephemeral port) that closes for good: `close` also
// drops the keep-alive and hanging connections that would hold `server.close` open.
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Loopback {
  url: string;
  close(): Promise<void>;
}

export async function listenOnLoopback(server: Server): Promise<Loopback> {
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
