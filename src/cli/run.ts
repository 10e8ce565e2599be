/**
 * One run of `mcpwire`: read the command line, understand the target, connect, run the command,
 * close, and say how it went with an exit code. Everything it touches comes in as `CliIo`, so a
 * run is a function of its inputs.
 */
import type { McpClient } from "../client/client.js";
import { connect } from "../connect.js";
import { parseCommandLine, type CliNetworkOptions } from "./args.js";
import { prepareCommand } from "./commands.js";
import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import { describeFailure } from "./failure.js";
import { ProgressDisplay, type TerminalStream } from "./progress.js";
import { DEFAULT_COLUMNS, type RenderContext } from "./render.js";
import { resolveCliTarget } from "./target.js";
import { HELP, UsageError } from "./usage.js";
import { cliOAuth, type CliOAuth } from "./auth/cli-oauth.js";
import { logout } from "./auth/logout.js";
import { openBrowser } from "./auth/open-browser.js";
import { terminalElicitation, type TerminalElicitation } from "./elicitation/terminal-elicitation.js";
import { defaultTokenDirectory, fileTokenStore } from "../auth/token-store.js";
import { ConfigError, type McpServerConfig } from "../config/server-config.js";
import { fileReadProblem } from "../transport/net/tls-options.js";
import { isBrowserLogin } from "../config/declared-auth.js";
import { PACKAGE_VERSION } from "../package-version.js";

export interface CliIo {
  /** The arguments after the program name. */
  argv: readonly string[];
  stdout: TerminalStream;
  stderr: TerminalStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Aborted when the user interrupts (Ctrl-C) or the process is told to stop; its reason says which. */
  signal: AbortSignal;
  /**
   * A person is at a terminal: a login the server asks for may open the browser, and a server
   * may ask questions (elicitation, answered on `stdin`). @default false
   */
  interactive?: boolean;
  /** The terminal's input, read only when a server asks the user something. */
  stdin?: NodeJS.ReadableStream;
  /** Opens the browser on a login URL, or a URL a server asks the user to open; the platform's opener by default. */
  openBrowser?: (url: string) => void;
}

/** The reason `CliIo.signal` is aborted with when the process is told to stop. */
export class StopRequest extends Error {
  override readonly name = "StopRequest";
  constructor(readonly signalName: "SIGINT" | "SIGTERM") {
    super(`stopped by ${signalName}`);
  }
}

export async function runCli(io: CliIo): Promise<ExitCodeValue> {
  let verbose = false;
  let setup = true;
  let notAServerNote: string | undefined;
  let client: McpClient | undefined;
  let auth: CliOAuth | undefined;
  let elicitation: TerminalElicitation | undefined;
  /** A question is on the terminal: the progress line keeps quiet. */
  let asking = false;
  const progress = ProgressDisplay.on(io.stderr);
  try {
    const invocation = parseCommandLine(io.argv);
    if (invocation.kind === "help") {
      io.stdout.write(HELP);
      return ExitCode.OK;
    }
    if (invocation.kind === "version") {
      io.stdout.write(`${PACKAGE_VERSION}\n`);
      return ExitCode.OK;
    }
    const { options } = invocation;
    verbose = options.verbose;
    // Operands are read before any server is started: a bad `key=value` is a usage error at once.
    if (invocation.command !== "logout") prepareCommand(invocation.command, invocation.operands);
    const target = await resolveCliTarget(invocation.target, {
      configFile: options.configFile,
      envAllow: options.envAllow,
      hasHeaders: Object.keys(options.headers).length > 0,
      networkFlags: networkFlags(options.network),
      cwd: io.cwd,
      env: io.env,
    });
    notAServerNote = target.notAServerNote;
    checkNetworkFiles(options.network);
    if (verbose) io.stderr.write(`mcpwire: target: ${target.understoodAs}\n`);
    const isLogin = invocation.command === "login" || invocation.command === "logout";
    if (isLogin && !reachedByHttp(target.config)) {
      throw new UsageError(`${invocation.command} applies to servers reached by an http(s) URL; this target is the ${target.understoodAs}`);
    }
    if (invocation.command === "logout") {
      io.stderr.write(`mcpwire: ${await logout(defaultTokenDirectory(io.env), target.config.url!)}\n`);
      return ExitCode.OK;
    }
    const store = fileTokenStore(defaultTokenDirectory(io.env));
    // A declared machine flow runs as declared (transportFor builds it); a browser login gets the browser.
    const declared = target.config.auth;
    if (reachedByHttp(target.config) && !hasAuthorizationHeader(options.headers, target.config) && isBrowserLogin(declared)) {
      auth = cliOAuth({
        stderr: io.stderr,
        interactive: invocation.command === "login" || io.interactive === true,
        browser: options.browser,
        store,
        target: invocation.target,
        signal: io.signal,
        opener: io.openBrowser,
        settings: declared,
      });
    }
    // A person at the terminal answers the server's questions; elsewhere none is declared, so none is asked.
    if (io.interactive === true && io.stdin) {
      elicitation = terminalElicitation({
        stdin: io.stdin,
        stderr: io.stderr,
        server: invocation.target,
        browser: options.browser,
        open: io.openBrowser ?? openBrowser,
        signal: io.signal,
        onAsking: (now) => {
          asking = now;
          if (now) progress?.clear();
        },
      });
    }
    client = await connect(target.config, {
      timeoutMs: options.timeoutMs,
      protocolVersion: options.protocol,
      validateOutput: options.validateOutput,
      headers: Object.keys(options.headers).length > 0 ? options.headers : undefined,
      ...options.network,
      auth: auth?.provider,
      signal: io.signal,
      handlers: elicitation ? { elicitation: elicitation.handlers } : undefined,
    });
    setup = false;
    const outcome = await prepareCommand(invocation.command, invocation.operands)({
      client,
      json: options.json,
      render: renderContextFor(io.stdout, io.env),
      write: (text) => {
        // Output replaces the progress line rather than running on after it (they may share a terminal).
        progress?.clear();
        io.stdout.write(text);
      },
      signal: io.signal,
      onProgress: (update) => {
        if (!asking) progress?.update(update);
      },
      onTaskStatus: (state) => {
        if (!asking) progress?.updateTask(state);
      },
    });
    progress?.clear();
    if (outcome.note) io.stderr.write(`mcpwire: ${outcome.note}\n`);
    if (invocation.command === "login") {
      io.stderr.write(
        auth!.logins > 0
          ? `mcpwire: logged in; the tokens are kept in ${defaultTokenDirectory(io.env)}\n`
          : "mcpwire: the server let this client in without a new login (tokens kept from before, or it needs none)\n",
      );
    }
    return outcome.code;
  } catch (error) {
    progress?.clear();
    const stop = io.signal.aborted && io.signal.reason instanceof StopRequest ? io.signal.reason : undefined;
    const report = describeFailure(error, { setup, interrupted: stop !== undefined, notAServerNote, verbose });
    io.stderr.write(`mcpwire: ${report.line}\n`);
    if (verbose) for (const detail of report.details) io.stderr.write(`  ${detail}\n`);
    return stop?.signalName === "SIGTERM" ? ExitCode.TERMINATED : report.code;
  } finally {
    // Nothing is left running: the child process is stopped, the HTTP session ended.
    await client?.close().catch(() => {});
    await auth?.close();
    elicitation?.close();
  }
}

/**
 * A `--ca`, `--cert` or `--key` file that cannot be read is the user's configuration (exit code
 * 3), said with the flag and the path before anything is reached, not a server that could not be.
 */
function checkNetworkFiles(network: CliNetworkOptions): void {
  const files: [string, { file: string } | undefined][] = [...(network.ca ?? []).map((ca): [string, { file: string }] => ["--ca", ca]), ["--cert", network.cert], ["--key", network.key]];
  for (const [flag, given] of files) {
    const problem = given === undefined ? undefined : fileReadProblem(given.file);
    if (problem !== undefined) throw new ConfigError(`${flag} ${given!.file}: the file could not be read (${problem}); give the path of a readable PEM file`);
  }
}

/** The proxy and TLS flags given, as written on the command line. */
function networkFlags(network: CliNetworkOptions): string[] {
  const flags: string[] = [];
  if (network.proxy !== undefined) flags.push(network.proxy === false ? "--no-proxy" : "--proxy");
  if (network.ca !== undefined) flags.push("--ca");
  if (network.cert !== undefined) flags.push("--cert", "--key");
  return flags;
}

function reachedByHttp(config: McpServerConfig): boolean {
  return config.transport === "http" || config.transport === "sse";
}

/** Authorization given by hand (`--header` or the declaration's headers) replaces the login. */
function hasAuthorizationHeader(headers: Record<string, string>, config: McpServerConfig): boolean {
  const given = [...Object.keys(headers), ...Object.keys(config.headers ?? {})];
  return given.some((name) => name.toLowerCase() === "authorization");
}

function renderContextFor(stdout: TerminalStream, env: Record<string, string | undefined>): RenderContext {
  // A terminal of unknown size reports 0 columns.
  if (stdout.isTTY) return { columns: stdout.columns || DEFAULT_COLUMNS, terminal: true };
  // A pipe or a file has no width: tables are printed whole, unless $COLUMNS gives one to fit.
  const given = env.COLUMNS?.trim() ?? "";
  const columns = /^[1-9]\d{0,5}$/.test(given) ? Number(given) : Infinity;
  return { columns, terminal: false };
}
