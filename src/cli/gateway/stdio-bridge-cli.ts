/**
 * `mcpwire gateway <url> --stdio`: a remote MCP server served on this process's stdin and stdout,
 * for desktop hosts that only start stdio servers (gateway/bridge/stdio-bridge.ts and bridge-relay.ts).
 *
 * stdin and stdout belong to the host, so nothing but JSON-RPC goes to stdout, and diagnostics
 * are JSON lines on stderr. A login cannot be asked for here: the bridge uses and refreshes the
 * tokens a prior `mcpwire login <url>` kept, and a remote that wants a login without them gets
 * each request answered with an error naming that command.
 *
 * It ends, with exit code 0, when stdin ends (the portable way a host stops a stdio server, and
 * the only one on Windows), or on SIGINT or SIGTERM; the remote session is ended first (DELETE
 * for a legacy HTTP session). A second signal exits at once.
 */
import type { ParseArgsConfig } from "node:util";
import { configForString } from "../../config/targets.js";
import { transportFor } from "../../config/transport-for.js";
import { defaultTokenDirectory, fileTokenStore } from "../../auth/token-store.js";
import { startStdioBridge } from "../../gateway/bridge/stdio-bridge.js";
import { parseDuration, parseNetwork } from "../args.js";
import { cliOAuth, type CliOAuth } from "../auth/cli-oauth.js";
import { ExitCode } from "../exit-codes.js";
import { parseStrictArgs } from "../strict-args.js";
import { UsageError } from "../usage.js";
import { BRIDGE_HEADERS_VARIABLE, bridgeHeaders } from "./bridge-headers.js";

const OPTIONS = {
  stdio: { type: "boolean" },
  "header-file": { type: "string" },
  proxy: { type: "string" },
  "no-proxy": { type: "boolean" },
  ca: { type: "string", multiple: true },
  cert: { type: "string" },
  key: { type: "string" },
  timeout: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsConfig["options"];

export const STDIO_BRIDGE_HELP = `mcpwire gateway <url> --stdio: a remote MCP server on this process's stdin and stdout

Options:
  --header-file <file>       headers for the remote, one "Name: value" per line
                             (or ${BRIDGE_HEADERS_VARIABLE}, a JSON object; never on the command line)
  --proxy <url>, --no-proxy  the proxy for the remote, or none whatever the variables say
  --ca <file>, --cert <file>, --key <file>
                             PEM files: CAs trusted beside the default ones, a client certificate and its key
  --timeout <duration>       how long one request may wait for its answer (5000, 500ms, 30s, 2m; default 60s)
  -h, --help

A remote that asks for a login needs one first: mcpwire login <url>
`;

/** What the bridge CLI is given beside its arguments; the process's own by default. */
export interface StdioBridgeIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: Record<string, string | undefined>;
}

/** Runs the bridge until stdin ends or a signal comes; resolves with the exit code. */
export async function runStdioBridgeCli(argv: readonly string[], io: StdioBridgeIo = processIo()): Promise<number> {
  const say = (line: string) => io.stderr.write(`${line}\n`);
  let auth: CliOAuth | undefined;
  try {
    const settings = await readCommandLine(argv, io.env);
    if (settings === "help") {
      io.stderr.write(STDIO_BRIDGE_HELP);
      return ExitCode.OK;
    }
    const { url, headers, network, timeoutMs } = settings;
    const config = configForString(url);
    const http = config.transport === "http" || config.transport === "sse";
    const stop = new AbortController();
    if (http && !Object.keys(headers).some((name) => name.toLowerCase() === "authorization")) {
      // Not interactive: kept tokens are used and refreshed; a new login fails naming `mcpwire login`.
      auth = cliOAuth({ stderr: io.stderr, interactive: false, browser: false, store: fileTokenStore(defaultTokenDirectory(io.env)), target: url, signal: stop.signal });
    }
    const transport = transportFor(config, {
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...network,
      ...(auth ? { auth: auth.provider } : {}),
    });
    const bridge = startStdioBridge({ transport, input: io.input, output: io.output, timeoutMs, log: say });
    const stopOnSignal = onSignals(() => {
      stop.abort();
      void bridge.close();
    });
    try {
      await bridge.done;
    } finally {
      stopOnSignal();
    }
    await flushed(io.output);
    return ExitCode.OK;
  } catch (error) {
    if (error instanceof UsageError) {
      say(`mcpwire: ${error.message} (see mcpwire gateway --stdio --help)`);
      return ExitCode.USAGE;
    }
    // Checked options (a TLS file that is not PEM...) fail with a TypeError naming the option.
    if (error instanceof TypeError) {
      say(`mcpwire: ${error.message}`);
      return ExitCode.CONFIG;
    }
    throw error;
  } finally {
    await auth?.close();
  }
}

interface BridgeSettings {
  url: string;
  headers: Record<string, string>;
  network: ReturnType<typeof parseNetwork>;
  timeoutMs: number | undefined;
}

/**
 * The prefix of the HTTP gateway's variables (http-gateway-cli.ts, not imported: the bridge does
 * not load the HTTP front). The bridge reads none of them, so one that is set is refused rather
 * than silently left unread.
 */
const HTTP_GATEWAY_VARIABLE_PREFIX = "MCPWIRE_GATEWAY_";

async function readCommandLine(argv: readonly string[], env: Record<string, string | undefined>): Promise<BridgeSettings | "help"> {
  const header = argv.find((word) => word === "--header" || word.startsWith("--header="));
  if (header !== undefined) {
    throw new UsageError(
      `--header is not taken with --stdio: the command line of a process is visible to every user of the machine; ` +
        `put the headers in a file given with --header-file (one "Name: value" per line) or in ${BRIDGE_HEADERS_VARIABLE} (a JSON object)`,
    );
  }
  const { values, positionals } = parseStrictArgs(argv, OPTIONS);
  if (values.help) return "help";
  const unread = Object.keys(env).find((name) => name.startsWith(HTTP_GATEWAY_VARIABLE_PREFIX) && env[name] !== undefined);
  if (unread !== undefined) {
    throw new UsageError(`${unread} configures the HTTP gateway (mcpwire gateway <target> --listen), which --stdio does not run; unset it`);
  }
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? "gateway --stdio needs the URL of the remote server" : `gateway --stdio takes one URL, got ${positionals.length} arguments`,
    );
  }
  const url = positionals[0]!.trim();
  if (!/^(https?|wss?):\/\/\S+$/i.test(url)) {
    throw new UsageError("gateway --stdio serves a remote server: give its http://, https://, ws:// or wss:// URL");
  }
  return {
    url,
    headers: await bridgeHeaders(values["header-file"], env),
    network: parseNetwork(values),
    timeoutMs: values.timeout === undefined ? undefined : parseDuration(values.timeout),
  };
}

/**
 * SIGINT and SIGTERM end the bridge; a second one exits at once. Both can be listened to on
 * every platform (on Windows SIGTERM never comes, and stdin EOF is what ends the bridge there).
 * Returns the function that stops listening.
 */
function onSignals(stop: () => void): () => void {
  let stopping = false;
  const handlers = (["SIGINT", "SIGTERM"] as const).map((name) => {
    const handler = () => {
      if (stopping) process.exit(name === "SIGINT" ? ExitCode.INTERRUPTED : ExitCode.TERMINATED);
      stopping = true;
      stop();
    };
    process.on(name, handler);
    return [name, handler] as const;
  });
  return () => {
    for (const [name, handler] of handlers) process.off(name, handler);
  };
}

/** Resolves once what was written on the stream has left (the process exits right after). */
function flushed(stream: NodeJS.WritableStream): Promise<void> {
  const writable = stream as NodeJS.WritableStream & { destroyed?: boolean; writableEnded?: boolean };
  if (writable.destroyed === true || writable.writableEnded === true) return Promise.resolve();
  return new Promise((resolve) => stream.write("", () => resolve()));
}

function processIo(): StdioBridgeIo {
  // A host that went away cannot be written to; that is no failure of the bridge (stdin ends too).
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    });
  }
  return { input: process.stdin, output: process.stdout, stderr: process.stderr, env: process.env };
}
