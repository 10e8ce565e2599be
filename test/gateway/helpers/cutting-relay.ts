/**
 * A TCP relay on 127.0.0.1 in front of a server, that cuts chosen connections mid-stream: the
 * network between a client and the gateway dropping. It sees what the server sends on each
 * connection, so a test can cut the one that carried a given event and leave the others (a
 * session's GET stream, the next POST) alone. New connections pass as before.
 */
import net from "node:net";

export interface CuttingRelay {
  port: number;
  /** Destroys every connection whose bytes from the server so far hold `text`; returns how many it cut. */
  cutWhere(text: string): number;
  /** Connections cut so far. */
  readonly cut: number;
  close(): Promise<void>;
}

/** What the relay keeps of each connection's bytes from the server, to look for a text in. */
const KEPT_BYTES = 1024 * 1024;

export async function startCuttingRelay(upstreamPort: number): Promise<CuttingRelay> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket; seen: string }>();
  let cut = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamPort, "127.0.0.1");
    const pair = { client, upstream, seen: "" };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on("error", end);
      socket.on("close", end);
    }
    upstream.on("data", (chunk: Buffer) => {
      pair.seen = (pair.seen + chunk.toString("utf8")).slice(-KEPT_BYTES);
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cutWhere(text) {
      let count = 0;
      for (const pair of [...pairs]) {
        if (!pair.seen.includes(text)) continue;
        pair.client.destroy();
        pair.upstream.destroy();
        count++;
      }
      cut += count;
      return count;
    },
    get cut() {
      return cut;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const pair of [...pairs]) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await closed;
    },
  };
}
