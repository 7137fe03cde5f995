// A loopback TCP proxy that stages network failures between the gateway and a real service (over
// TCP, or a Unix socket such as dockerd's).
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';

/**
 * A loopback TCP proxy that a test puts between the gateway and a real service (PostgreSQL,
 * Redis) to stage the network failures an operator meets, without touching the shared service:
 * - `pass`: bytes flow both ways (the start, and `restore()`);
 * - `cut()`: every open connection is closed at once (a server restart, failover, idle reaper),
 *   new ones pass;
 * - `refuse`: nothing listens: new connections get ECONNREFUSED, open ones are cut;
 * - `blackhole`: connections are accepted and kept, but no byte goes anywhere (a dropped route, a
 *   firewall that drops packets): the client waits forever unless it bounds its own waits.
 */
export type ProxyMode = 'pass' | 'refuse' | 'blackhole';

interface Pair {
  client: Socket;
  upstream?: Socket;
}

export interface TcpProxy {
  /** `host:port` and port of the listening side. */
  host: string;
  port: number;
  mode(): ProxyMode;
  /** Closes every open connection (both sides); the mode is unchanged. */
  cut(): void;
  /** Stops listening and cuts every connection: new connections are refused until `restore()`. */
  refuse(): Promise<void>;
  /** Holds every connection, old and new, without forwarding a byte until `restore()`. */
  blackhole(): void;
  /** Back to `pass`: listens again if refused; connections held by a blackhole are closed (their streams lost bytes). */
  restore(): Promise<void>;
  /** Connections currently open on the listening side. */
  connections(): number;
  close(): Promise<void>;
}

/** Where the proxy forwards: a TCP address, or a Unix socket's path (dockerd's). */
export type ProxyTarget = { host: string; port: number } | { path: string };

export async function startTcpProxy(target: ProxyTarget): Promise<TcpProxy> {
  let mode: ProxyMode = 'pass';
  const pairs = new Set<Pair>();

  const drop = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream?.destroy();
    pairs.delete(pair);
  };

  // Half-open allowed: a blackhole swallows a FIN too, as a dropped route does, instead of answering it.
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    const pair: Pair = { client };
    pairs.add(pair);
    client.on('error', () => drop(pair));
    client.on('close', () => drop(pair));
    if (mode === 'blackhole') {
      client.on('data', () => {}); // read and discard: the sender sees its bytes leave, nothing comes back
      return;
    }
    const upstream = new Socket({ allowHalfOpen: true });
    pair.upstream = upstream;
    upstream.on('error', () => drop(pair));
    upstream.on('close', () => drop(pair));
    // Forwarding checks the mode per chunk, so a blackhole swallows open connections too.
    client.on('data', (chunk) => {
      if (mode === 'pass') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (mode === 'pass') client.write(chunk);
    });
    client.on('end', () => {
      if (mode === 'pass') upstream.end();
    });
    upstream.on('end', () => {
      if (mode === 'pass') client.end();
    });
    if ('path' in target) upstream.connect(target.path);
    else upstream.connect(target.port, target.host);
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stopListening = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const cut = () => {
    for (const pair of [...pairs]) drop(pair);
  };

  await listen(0);
  const port = (server.address() as AddressInfo).port;

  return {
    host: '127.0.0.1',
    port,
    mode: () => mode,
    cut,
    refuse: async () => {
      mode = 'refuse';
      const closed = stopListening();
      cut();
      await closed;
    },
    blackhole: () => {
      mode = 'blackhole';
    },
    restore: async () => {
      const previous = mode;
      mode = 'pass';
      if (previous === 'refuse') await listen(port);
      if (previous === 'blackhole') cut();
    },
    connections: () => pairs.size,
    close: async () => {
      const closed = server.listening ? stopListening() : Promise.resolve();
      cut();
      await closed;
    },
  };
}
