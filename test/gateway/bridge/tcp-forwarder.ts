/**
 * A TCP forwarder on a fixed port of 127.0.0.1, in front of an upstream whose port changes: the
 * remote a bridge keeps one URL for, killed (the forwarder stops listening and cuts every
 * connection, as the host's own server process dying does) and restarted (it listens again on
 * the same port, now toward the new process).
 */
import net from "node:net";

export interface TcpForwarder {
  port: number;
  /** Sends new connections to this upstream port, and listens again if it stopped. */
  forwardTo(upstreamPort: number): Promise<void>;
  /** Stops listening and destroys every connection through it. */
  cut(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpForwarder(upstreamPort: number): Promise<TcpForwarder> {
  let upstream = upstreamPort;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const target = net.connect(upstream, "127.0.0.1");
    for (const socket of [client, target]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        target.destroy();
      });
    }
    client.pipe(target);
    target.pipe(client);
    client.on("close", () => target.destroy());
    target.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  const cut = async () => {
    const closed = server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    port,
    async forwardTo(next) {
      upstream = next;
      if (!server.listening) await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", () => resolve()));
    },
    cut,
    close: cut,
  };
}
