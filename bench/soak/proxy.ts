/**
 * A TCP proxy in front of a node, for the soak's node faults: it passes bytes through, or delays
 * every chunk both ways (a node that answers slowly), or resets every connection a short while
 * after it opens (a node, or the network before it, that drops connections). The indexers talk to
 * the proxy; the soak's own checks talk to the node.
 */
import net from 'node:net';

export type ProxyMode = { kind: 'pass' } | { kind: 'slow'; delayMs: number } | { kind: 'drop'; maxLifeMs: number };

export interface FaultProxy {
  /** `127.0.0.1:<port>`. */
  address: string;
  port: number;
  setMode(mode: ProxyMode): void;
  /** Connections accepted and connections the proxy reset. */
  stats(): { accepted: number; reset: number };
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: { host: string; port: number }): Promise<FaultProxy> {
  let mode: ProxyMode = { kind: 'pass' };
  const open = new Set<net.Socket>();
  let accepted = 0;
  let reset = 0;

  const resetPair = (a: net.Socket, b: net.Socket) => {
    if (a.destroyed && b.destroyed) return;
    reset++;
    a.resetAndDestroy();
    b.resetAndDestroy();
  };

  /** Chunks leave in order: a later chunk never overtakes an earlier one when the delay changes. */
  const pipe = (from: net.Socket, to: net.Socket) => {
    let due = 0;
    from.on('data', (chunk: Buffer) => {
      const now = performance.now();
      const delay = mode.kind === 'slow' ? mode.delayMs : 0;
      if (delay === 0 && due <= now) return void to.write(chunk);
      due = Math.max(due, now + delay);
      setTimeout(() => !to.destroyed && to.write(chunk), due - now);
    });
    from.on('end', () => setTimeout(() => to.end(), Math.max(0, due - performance.now())));
  };

  const dropLater = (client: net.Socket, node: net.Socket) => {
    if (mode.kind !== 'drop') return;
    const timer = setTimeout(() => resetPair(client, node), Math.random() * mode.maxLifeMs);
    client.once('close', () => clearTimeout(timer));
  };

  const server = net.createServer((client) => {
    accepted++;
    const node = net.connect(upstream.port, upstream.host);
    open.add(client);
    client.once('close', () => {
      open.delete(client);
      node.destroy();
    });
    node.once('close', () => client.destroy());
    client.on('error', () => node.destroy());
    node.on('error', () => client.destroy());
    pipe(client, node);
    pipe(node, client);
    (client as net.Socket & { peer?: net.Socket }).peer = node;
    dropLater(client, node);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    address: `127.0.0.1:${port}`,
    port,
    setMode(next) {
      mode = next;
      if (next.kind === 'drop') {
        for (const client of open) dropLater(client, (client as net.Socket & { peer: net.Socket }).peer);
      }
    },
    stats: () => ({ accepted, reset }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of open) client.destroy();
        server.close(() => resolve());
      }),
  };
}
