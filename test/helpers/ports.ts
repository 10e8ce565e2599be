/** Ports on 127.0.0.1 for failure tests: one where nothing listens, one where no connection is ever made. */
import { spawn } from "node:child_process";
import net from "node:net";

export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A port on 127.0.0.1 where a new connection is never made: a child process listens with the
 * smallest backlog and never accepts (its event loop is blocked), and the queue is filled, so
 * the kernel drops every further SYN, as a firewall that drops packets does. `stop()` ends it.
 */
export async function unansweredPort(): Promise<{ port: number; stop(): void }> {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `const server = require("node:net").createServer().listen({ host: "127.0.0.1", port: 0, backlog: 1 }, () => {
        // Blocked in the write's callback, before its event loop can accept anything: once the
        // port is read, no connection is ever accepted.
        process.stdout.write(server.address().port + "\\n", () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0));
      });`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.stdout.once("data", (data: Buffer) => resolve(Number(String(data).trim())));
  });
  // Connections the kernel completes on its own until the accept queue is full.
  const fillers: net.Socket[] = [];
  for (;;) {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => {});
    fillers.push(socket);
    const connected = await new Promise<boolean>((resolve) => {
      socket.once("connect", () => resolve(true));
      // The kernel completes a connection on loopback at once while the queue has room: a second
      // without one means the queue is full (a longer bound only costs time, never a wrong port).
      setTimeout(() => resolve(false), 1_000);
    });
    if (!connected) break;
    if (fillers.length > 64) throw new Error("the accept queue never filled");
  }
  return {
    port,
    stop() {
      for (const socket of fillers) socket.destroy();
      child.kill("SIGKILL");
    },
  };
}
