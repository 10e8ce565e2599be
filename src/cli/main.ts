#!/usr/bin/env node
/**
 * The `mcpwire` command. See src/cli/usage.ts for what it takes and src/cli/exit-codes.ts for
 * what its exit codes mean.
 */
import { runCli, StopRequest } from "./run.js";

// `mcpwire gateway` is a long-running server with its own signal handling (SIGTERM drains), so
// it branches off before the one-shot commands install theirs.
if (process.argv[2] === "gateway") {
  const { gatewayMain } = await import("./gateway/main.js");
  process.exit(await gatewayMain(process.argv.slice(3)));
}

const stop = new AbortController();
for (const signalName of ["SIGINT", "SIGTERM"] as const) {
  process.on(signalName, () => {
    // The first signal cancels the request and closes the server; a second one does not wait.
    if (stop.signal.aborted) process.exit(signalName === "SIGINT" ? 130 : 143);
    stop.abort(new StopRequest(signalName));
  });
}

// A reader that went away (`mcpwire call ... | head -c 100`) is no failure: the rest of the output
// has nowhere to go, and the run still ends by closing the server.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
  });
}

const code = await runCli({
  argv: process.argv.slice(2),
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: stop.signal,
  interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
  stdin: process.stdin,
});

// Exit once the output is written, whatever idle sockets or timers a server left behind.
await Promise.all(
  [process.stdout, process.stderr].map((stream) => new Promise((resolve) => (stream.destroyed ? resolve(undefined) : stream.write("", resolve)))),
);
process.exit(code);
