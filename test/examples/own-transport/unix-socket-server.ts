// The server side of the same wire, for tests: each connection on the socket is handed to a
// server that takes ends in the official SDK's Transport shape, such as mcpwire's reference
// contract server (createContractServer() from mcpwire/testing).
import { createServer, type Socket } from "node:net";
import type { ContractServer, MemoryServerEnd } from "../../../src/testing.js";

export interface UnixSocketServer {
  /** Resolves once every connection the server accepted has closed. */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

export async function serveOnUnixSocket(server: ContractServer, path: string): Promise<UnixSocketServer> {
  const open = new Set<Socket>();
  let idle: (() => void)[] = [];
  const listener = createServer((socket) => {
    open.add(socket);
    const end: MemoryServerEnd = {
      start: async () => {},
      send: async (message) => void socket.write(`${JSON.stringify(message)}\n`),
      close: async () => void socket.destroy(),
    };
    let line = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      const lines = (line + chunk).split("\n");
      line = lines.pop()!;
      for (const text of lines) end.onmessage?.(JSON.parse(text));
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      open.delete(socket);
      end.onclose?.();
      if (open.size > 0) return;
      const waiting = idle;
      idle = [];
      for (const resolve of waiting) resolve();
    });
    void server.connect(end);
  });
  await new Promise<void>((resolve, reject) => listener.once("error", reject).listen(path, resolve));
  return {
    allClosed: () => (open.size === 0 ? Promise.resolve() : new Promise((resolve) => idle.push(resolve))),
    close: () => {
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => listener.close(() => resolve()));
    },
  };
}
