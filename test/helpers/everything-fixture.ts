/**
 * @modelcontextprotocol/server-everything as a child process on 127.0.0.1 (test/fixtures/everything-http.mjs),
 * in its Streamable HTTP mode or its legacy HTTP+SSE one, reached once it says it listens; and
 * the script that runs it over stdio.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";

const fixture = fileURLToPath(new URL("../fixtures/everything-http.mjs", import.meta.url));

/** The server's script: `node <EVERYTHING_ENTRY> stdio` serves it over stdio. */
export const EVERYTHING_ENTRY = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));

/** How long the server may take to start on a loaded machine. */
export const EVERYTHING_START_TIMEOUT_MS = 20_000;

export interface EverythingServer {
  /** `http://127.0.0.1:<port>`: add `/mcp` (Streamable HTTP) or `/sse` (HTTP+SSE). */
  origin: string;
  /** Kills the server and resolves once it exited. */
  stop(): Promise<void>;
}

export function startEverything(mode: "streamableHttp" | "sse"): Promise<EverythingServer> {
  const child: ChildProcess = spawn(process.execPath, [fixture, mode], { stdio: ["ignore", "ignore", "pipe"] });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  return new Promise<EverythingServer>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error("server-everything did not start"));
    }, EVERYTHING_START_TIMEOUT_MS);
    let seen = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = /mcpwire-fixture listening (\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve({ origin: `http://127.0.0.1:${match[1]}`, stop });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}`));
    });
  });
}

/** Where a test file reaches server-everything over HTTP, once its servers started. */
export interface EverythingUrls {
  /** The Streamable HTTP endpoint, `<origin>/mcp`. */
  streamableHttp(): string;
  /** The legacy HTTP+SSE endpoint, `<origin>/sse`. */
  sse(): string;
}

/**
 * Starts server-everything in both HTTP modes before the calling file's tests and stops both
 * after them. Call it at the top level of a test file.
 */
export function useEverythingHttp(): EverythingUrls {
  let streamable: EverythingServer | undefined;
  let sse: EverythingServer | undefined;
  beforeAll(async () => {
    [streamable, sse] = await Promise.all([startEverything("streamableHttp"), startEverything("sse")]);
  }, EVERYTHING_START_TIMEOUT_MS + 5_000);
  afterAll(async () => {
    await Promise.all([streamable?.stop(), sse?.stop()]);
  });
  return { streamableHttp: () => `${streamable!.origin}/mcp`, sse: () => `${sse!.origin}/sse` };
}
