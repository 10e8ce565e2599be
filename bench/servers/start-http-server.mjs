// Starts the benchmark's minimal server over HTTP (JSON or SSE replies) on a free 127.0.0.1 port.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const SERVER = fileURLToPath(new URL("minimal-server.mjs", import.meta.url));

/** Resolves with the server's URL and a function that stops it. `mode`: "http-json" or "http-sse". */
export function startHttpServer(mode) {
  return new Promise((resolve, reject) => {
    const server = spawn(process.execPath, [SERVER, mode, "0"], { stdio: ["ignore", "pipe", "inherit"] });
    server.once("error", reject);
    server.stdout.setEncoding("utf8");
    server.stdout.once("data", (line) => {
      const port = /listening (\d+)/.exec(line)?.[1];
      if (!port) return reject(new Error(`the bench server said ${JSON.stringify(line)}`));
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        stop: () =>
          new Promise((done) => {
            server.once("exit", done);
            server.kill("SIGTERM");
          }),
      });
    });
  });
}

/**
 * Runs `run(target)` against the bench server over `transport`: "stdio" (the driver starts the
 * server itself), or "http-json" / "http-sse" against a server of its own, stopped after.
 */
export async function withServer(transport, run) {
  if (transport === "stdio") return run("stdio");
  const server = await startHttpServer(transport);
  try {
    return await run(server.url);
  } finally {
    await server.stop();
  }
}
