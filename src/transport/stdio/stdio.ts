/**
 * stdio transport: the server is a child process; JSON-RPC goes to its stdin and comes back on
 * its stdout, one message per line (MCP specification, basic/transports, "stdio").
 *
 * Hardened against what stdio clients commonly suffer:
 * - No shell and no inherited credentials: the child is spawned from an explicit argv, with
 *   only the variables named in `envAllow` plus the explicit `env`.
 * - No stderr deadlock: stderr is always drained; its last lines are kept as `stderrTail` and
 *   attached to every failure of the connection; stderr output is never an error by itself.
 * - No unbounded buffer: `maxMessageBytes` is kept while reading, a line past it fails with
 *   LIMIT without being held, and the connection fails closed.
 * - No hang after the child dies: its exit fails every pending request at once with
 *   DISCONNECTED, the exit code and the stderr tail; a write to a dead child rejects at once.
 * - No orphans: on close, cancellation or failure the whole process group is stopped (close
 *   stdin, wait, SIGTERM, wait, SIGKILL), and `close()` resolves only once it is gone.
 */
import { statSync } from "node:fs";
import { McpTransportError } from "../../errors.js";
import { serializeMessage, type JsonRpcMessage, type RequestId } from "../../protocol/jsonrpc.js";
import { abortReason } from "../../util/abort.js";
import { closedOnce, type EventsClosedOnce } from "../common/ending.js";
import { IncomingBatches } from "../common/incoming-batches.js";
import { checkEnv, checkEnvAllow, childEnv, defaultEnvAllow } from "./child-env.js";
import { LineFramer } from "./line-framer.js";
import {
  DEFAULT_STDIN_CLOSE_GRACE_MS,
  DEFAULT_TERMINATE_GRACE_MS,
  loadSpawner,
  spawnProcessTree,
  type ProcessExit,
  type ProcessTree,
  type StopTimings,
} from "./process-tree.js";
import { ReadStallWatch } from "../common/read-stall.js";
import { DEFAULT_STDERR_TAIL_BYTES, DEFAULT_STDERR_TAIL_LINES, StderrTail } from "./stderr-tail.js";
import { describeValue, isOverBytes, messageTooLarge, type Limits } from "../limits.js";
import type { ConnectionEnding, ConnectionEvents, McpConnection, McpTransport, OpenOptions, SendContext, WireRules } from "../transport.js";
import { didYouMean } from "../../util/option-names.js";
import { TurnBatch } from "../../util/hot-path.js";
import { checkWholeNumber } from "../../util/whole-number.js";

export { DEFAULT_STDIN_CLOSE_GRACE_MS, DEFAULT_TERMINATE_GRACE_MS } from "./process-tree.js";
export { DEFAULT_STDERR_TAIL_BYTES, DEFAULT_STDERR_TAIL_LINES } from "./stderr-tail.js";
export { DEFAULT_ENV_ALLOW_POSIX, DEFAULT_ENV_ALLOW_WINDOWS, defaultEnvAllow } from "./child-env.js";

const KIND = "stdio";

/**
 * Once the child exited (or closed its stdout), how long we keep reading what it wrote before
 * we report the end: its last messages and stderr lines are already in the pipes and arrive
 * within a few event-loop turns, while a grandchild holding a pipe open must not hold the
 * failure back.
 * @default 250 ms
 */
export const EXIT_DRAIN_MS = 250;

/**
 * A stream given as `stderr` is written to without waiting for it; past this many bytes queued
 * in it, stderr chunks are dropped for it rather than buffered without bound or wedging the child.
 * @default 1 MiB
 */
export const STDERR_FORWARD_MAX_QUEUED_BYTES = 1024 * 1024;

/** Where the child's stderr is forwarded, besides the tail: a writable stream or a callback. */
export type StderrDestination =
  | {
      write(chunk: Uint8Array): unknown;
      readonly writableLength?: number;
      readonly destroyed?: boolean;
      readonly writableEnded?: boolean;
    }
  | ((text: string) => void);

/** Said with a stdout line that is not JSON-RPC: the stdio transport allows nothing else there (basic/transports). */
const NON_PROTOCOL_ADVICE = 'a server writes only JSON-RPC messages on stdout: if this one prints a banner or logs there, set nonProtocolLines: "skip"';

/** What to do with a stdout line that is not a JSON-RPC message. */
export type NonProtocolLines =
  /** Fail the connection with PROTOCOL (the spec forbids anything else on stdout). */
  | "fail"
  /** Skip it and count it (`skippedLines`), for servers known to print banners. */
  | "skip";

export interface StdioTransportOptions {
  /** The program to run: a name looked up on the child's PATH, or a path. Never a shell line. */
  command: string;
  /** Its arguments, passed as they are (no shell, no splitting, no globbing). @default [] */
  args?: readonly string[];
  /** Variables set for the child on top of the inherited ones; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /**
   * The only variables of this process the child inherits. Replaces the default list; spread
   * `defaultEnvAllow()` to extend it. @default DEFAULT_ENV_ALLOW_POSIX / DEFAULT_ENV_ALLOW_WINDOWS
   */
  envAllow?: readonly string[];
  /** The child's working directory. @default this process's */
  cwd?: string;
  /**
   * Also forward the child's stderr here: a writable stream (given the raw bytes, never waited
   * for) or a callback (given the text as it arrives, in chunks that are not always whole lines).
   * stderr is drained and its tail kept whether or not it is forwarded.
   */
  stderr?: StderrDestination;
  /** A stdout line that is not JSON-RPC: fail the connection, or skip and count it. @default "fail" */
  nonProtocolLines?: NonProtocolLines;
  /** Lines of stderr kept for `stderrTail`. @default DEFAULT_STDERR_TAIL_LINES (50) */
  stderrTailLines?: number;
  /** Bytes of stderr kept for `stderrTail`. @default DEFAULT_STDERR_TAIL_BYTES (8 KiB) */
  stderrTailBytes?: number;
  /** Close ladder: ms the child has to exit after its stdin is closed. @default DEFAULT_STDIN_CLOSE_GRACE_MS (2 s) */
  stdinCloseGraceMs?: number;
  /** Close ladder: ms between SIGTERM and SIGKILL. @default DEFAULT_TERMINATE_GRACE_MS (5 s) */
  terminateGraceMs?: number;
}

/** Every option `StdioTransport` takes. */
export const STDIO_OPTION_NAMES = [
  "command",
  "args",
  "env",
  "envAllow",
  "cwd",
  "stderr",
  "nonProtocolLines",
  "stderrTailLines",
  "stderrTailBytes",
  "stdinCloseGraceMs",
  "terminateGraceMs",
] as const satisfies readonly (keyof StdioTransportOptions)[];
const OPTION_NAMES: ReadonlySet<string> = new Set(STDIO_OPTION_NAMES);

/** The longest description kept for error messages; arguments can be long (paths, JSON). */
const MAX_DESCRIPTION_CHARS = 200;

/**
 * Reaches an MCP server that runs as a child process. Each `open` starts a new child; the
 * getters describe the child of the latest `open`.
 */
export class StdioTransport implements McpTransport {
  readonly kind = KIND;
  readonly description: string;
  readonly command: string;
  readonly args: readonly string[];
  private readonly options: StdioTransportOptions;
  private readonly envAllow: readonly string[];
  private readonly timings: StopTimings;
  private latest: StdioConnection | undefined;
  private skipped = 0;

  constructor(options: StdioTransportOptions) {
    const where = "StdioTransport";
    if (typeof options !== "object" || options === null) throw new TypeError(`${where}: options must be an object`);
    for (const key of Object.keys(options)) {
      if (!OPTION_NAMES.has(key)) {
        throw new TypeError(
          `${where}: unknown option "${key}"${didYouMean(key, OPTION_NAMES)}; the options are ${[...OPTION_NAMES].join(", ")}` +
            " (limits such as timeoutMs and maxMessageBytes are options of the client or session)",
        );
      }
    }
    if (typeof options.command !== "string" || options.command.trim() === "" || options.command.includes("\0")) {
      throw new TypeError(`${where}: "command" must be a non-empty string naming a program, got ${describeValue(options.command)}`);
    }
    const args = options.args ?? [];
    if (!Array.isArray(args) || args.some((arg) => typeof arg !== "string" || arg.includes("\0"))) {
      throw new TypeError(`${where}: "args" must be an array of strings (without NUL)`);
    }
    if (options.env !== undefined) checkEnv(options.env, where);
    this.envAllow = options.envAllow === undefined ? defaultEnvAllow() : [...checkEnvAllow(options.envAllow, where)];
    if (options.cwd !== undefined && (typeof options.cwd !== "string" || options.cwd === "")) {
      throw new TypeError(`${where}: "cwd" must be a non-empty string, got ${describeValue(options.cwd)}`);
    }
    if (options.stderr !== undefined && typeof options.stderr !== "function" && typeof options.stderr?.write !== "function") {
      throw new TypeError(`${where}: "stderr" must be a writable stream or a function`);
    }
    if (options.nonProtocolLines !== undefined && options.nonProtocolLines !== "fail" && options.nonProtocolLines !== "skip") {
      throw new TypeError(`${where}: "nonProtocolLines" must be "fail" or "skip", got ${describeValue(options.nonProtocolLines)}`);
    }
    checkWhole(where, "stderrTailLines", options.stderrTailLines, 1);
    checkWhole(where, "stderrTailBytes", options.stderrTailBytes, 1);
    this.timings = {
      stdinCloseGraceMs: checkWhole(where, "stdinCloseGraceMs", options.stdinCloseGraceMs, 0) ?? DEFAULT_STDIN_CLOSE_GRACE_MS,
      terminateGraceMs: checkWhole(where, "terminateGraceMs", options.terminateGraceMs, 0) ?? DEFAULT_TERMINATE_GRACE_MS,
    };
    this.options = { ...options };
    this.command = options.command;
    this.args = Object.freeze([...args]);
    const line = [options.command, ...args].map(quoteArg).join(" ");
    this.description = `${KIND}: ${line.length > MAX_DESCRIPTION_CHARS ? `${line.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : line}`;
  }

  /** The process id of the latest child (also its process group id on POSIX). */
  get pid(): number | undefined {
    return this.latest?.tree.pid;
  }

  /** The latest child's exit code, once it exited (null when a signal ended it). */
  get exitCode(): number | null | undefined {
    return this.latest?.tree.exitStatus?.exitCode;
  }

  /** The signal that ended the latest child, once it exited (null when it exited by itself). */
  get exitSignal(): string | null | undefined {
    return this.latest?.tree.exitStatus?.signal;
  }

  /** The last lines the latest child wrote on stderr. */
  get stderrTail(): string {
    return this.latest?.tail.text() ?? "";
  }

  /** Lines skipped as not JSON-RPC (with `nonProtocolLines: "skip"`), over every connection. */
  get skippedLines(): number {
    return this.skipped;
  }

  async open(events: ConnectionEvents, options: OpenOptions): Promise<McpConnection> {
    const signal = options.signal;
    if (signal?.aborted) throw abortReason(signal);
    // Nothing to wait for on POSIX: the child starts now, before anything else this turn loads.
    const spawnerLoading = loadSpawner();
    if (spawnerLoading) {
      await spawnerLoading;
      if (signal?.aborted) throw abortReason(signal);
    }
    const env = childEnv({ allow: this.envAllow, env: this.options.env });
    let tree: ProcessTree;
    try {
      tree = spawnProcessTree(this.command, this.args, { cwd: this.options.cwd, env });
    } catch (cause) {
      throw this.cannotStart(cause);
    }
    const connection = new StdioConnection(tree, events, options.limits, {
      cannotStart: (cause, stderrTail) => this.cannotStart(cause, stderrTail),
      timings: this.timings,
      stderr: this.options.stderr,
      skipNonProtocol: this.options.nonProtocolLines === "skip",
      onSkipped: () => this.skipped++,
      tail: new StderrTail({
        maxLines: this.options.stderrTailLines ?? DEFAULT_STDERR_TAIL_LINES,
        maxBytes: this.options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES,
      }),
    });
    this.latest = connection;
    await connection.start(signal);
    return connection;
  }

  /** UNAVAILABLE for a child that could not start, naming the command and the likely cause. */
  cannotStart(cause: unknown, stderrTail?: string): McpTransportError {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    const command = JSON.stringify(this.command);
    let why: string;
    if ((code === "ENOENT" || code === "ENOTDIR") && this.options.cwd !== undefined && !isDirectory(this.options.cwd)) {
      why = `its working directory ${JSON.stringify(this.options.cwd)} does not exist or is not a directory`;
    } else if (code === "ENOENT") {
      why = `command ${command} was not found (is it installed and on the PATH the child inherits?)`;
      if (this.args.length === 0 && /\s/.test(this.command.trim())) {
        why += `; no shell is used, so give the program in "command" and its arguments in "args"`;
      }
    } else if (code === "EACCES" || code === "EPERM") {
      why = `command ${command} cannot be run (permission denied: is it an executable file?)`;
    } else {
      why = `command ${command} could not be started${code ? ` (${code})` : ""}`;
    }
    return new McpTransportError("UNAVAILABLE", `could not start the server process: ${why}`, {
      cause,
      stderrTail: stderrTail || undefined,
    });
  }
}

interface ConnectionSettings {
  /** The UNAVAILABLE failure for a child that could not start, in the transport's words. */
  cannotStart: (cause: unknown, stderrTail?: string) => McpTransportError;
  timings: StopTimings;
  stderr: StderrDestination | undefined;
  skipNonProtocol: boolean;
  onSkipped: () => void;
  tail: StderrTail;
}

type Phase =
  /** Spawned, not yet known to be running; `open` has not resolved. */
  | "starting"
  | "open"
  /** The child exited or closed stdout: reading what is left for at most EXIT_DRAIN_MS. */
  | "draining"
  /** Ended: nothing more is delivered or sent; the tree is being (or was) stopped. */
  | "ended";

interface DrainWaiter {
  resolve(): void;
  reject(error: McpTransportError): void;
}

/** One child process as one connection. */
class StdioConnection implements McpConnection {
  readonly tail: StderrTail;
  private phase: Phase = "starting";
  private readonly framer: LineFramer;
  private readonly stall: ReadStallWatch;
  private drainWaiters: DrainWaiter[] = [];
  /**
   * Requests sent before the child wrote its first byte. The start of a process (`npx -y` may
   * download the package first) is bounded by the connect deadline (`timeoutMs`), not by
   * `readTimeoutMs`: the read-stall count begins when the server first speaks.
   */
  private sentBeforeFirstByte: JsonRpcMessage[] | undefined = [];
  private stdoutEnded = false;
  private stderrEnded = false;
  private drainTimer: NodeJS.Timeout | undefined;
  /** Our own verdict (`fail`), waiting to be reported until the child's stderr has ended. */
  private verdict: { error: McpTransportError; timer: NodeJS.Timeout } | undefined;
  private stopped: Promise<ProcessExit | undefined> | undefined;
  private readonly events: EventsClosedOnce;
  private closing: Promise<void> | undefined;
  private readonly stderrText = new TextDecoder("utf-8");
  /** What goes to the child's stdin: the lines of each turn, written together at its end. */
  private readonly lines: TurnBatch | undefined;
  /**
   * Whether the server may write a JSON-RPC batch as one line (2025-03-26: "Messages may be ... a
   * JSON-RPC batch"): the rule every wire follows, in `common/incoming-batches.ts`.
   */
  private readonly batches = new IncomingBatches();

  constructor(
    readonly tree: ProcessTree,
    events: ConnectionEvents,
    private readonly limits: Limits,
    private readonly settings: ConnectionSettings,
  ) {
    this.events = closedOnce(events);
    this.tail = settings.tail;
    this.framer = new LineFramer(limits.maxMessageBytes);
    this.stall = new ReadStallWatch(limits.readTimeoutMs, "the server process", (id, error) =>
      this.events.requestFailed(id, this.withTail(error)),
    );
    const child = tree.child;
    this.lines = child.stdin ? new TurnBatch(child.stdin) : undefined;
    // Every stream gets an 'error' listener: an unhandled one would crash this process.
    child.stdin?.on("error", () => this.peerGone());
    child.stdin?.on("drain", () => this.resolveDrainWaiters());
    child.stdout?.on("error", () => this.onStdoutEnd());
    child.stdout?.on("end", () => this.onStdoutEnd());
    child.stdout?.on("close", () => this.onStdoutEnd());
    // stderr is read from the first moment and never paused: a full pipe would wedge the child.
    child.stderr?.on("data", (chunk: Buffer) => this.onStderr(chunk));
    child.stderr?.on("error", () => this.onStderrEnd());
    child.stderr?.on("end", () => this.onStderrEnd());
    child.stderr?.on("close", () => this.onStderrEnd());
    child.on("exit", () => this.peerGone());
    child.on("error", (error) => this.onChildError(error));
  }

  /** Resolves once the child runs; rejects with UNAVAILABLE or the abort reason, leaving nothing running. */
  async start(signal: AbortSignal | undefined): Promise<void> {
    const child = this.tree.child;
    let onAbort: (() => void) | undefined;
    let onSpawn: (() => void) | undefined;
    let onError: ((error: Error) => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        onSpawn = resolve;
        onError = reject;
        child.once("spawn", onSpawn);
        child.once("error", onError);
        if (signal) {
          onAbort = () => reject(abortReason(signal));
          signal.addEventListener("abort", onAbort, { once: true });
        }
      });
    } catch (error) {
      this.phase = "ended";
      await this.stopTree();
      if (signal?.aborted) throw abortReason(signal);
      throw this.settings.cannotStart(error, this.tail.text());
    } finally {
      if (onSpawn) child.removeListener("spawn", onSpawn);
      if (onError) child.removeListener("error", onError);
      if (onAbort) signal!.removeEventListener("abort", onAbort);
    }
    this.phase = "open";
    child.stdout?.on("data", (chunk: Buffer) => this.onStdout(chunk));
  }

  send(message: JsonRpcMessage, context?: SendContext): Promise<void> {
    if (this.phase === "draining") return this.failWhenDrained();
    if (this.phase !== "open") return Promise.reject(this.notOpen());
    let text: string;
    try {
      text = serializeMessage(message);
    } catch (error) {
      return Promise.reject(error);
    }
    if (isOverBytes(text, this.limits.maxMessageBytes)) {
      return Promise.reject(this.withTail(messageTooLarge(this.limits.maxMessageBytes, "sent", KIND)));
    }
    const stdin = this.tree.child.stdin;
    if (!stdin || !stdin.writable || !this.lines) return this.writeAfterStdinGone();
    // A long-lived request (subscriptions/listen) waits for no answer: the read-stall ceiling skips it.
    if (!context?.longLived) {
      if (!this.sentBeforeFirstByte) this.stall.sent(message);
      else if ("id" in message && "method" in message) this.sentBeforeFirstByte.push(message);
    }
    let flushed: boolean;
    try {
      // JSON.stringify escapes newlines inside strings, so the message is one line.
      const line = `${text}\n`;
      // Held to the end of the turn: while calls overlap, their callers send the next ones as a
      // chunk of replies settles them, all in one turn, and those lines leave together.
      flushed = this.lines.write(line);
    } catch (cause) {
      return Promise.reject(this.withTail(new McpTransportError("DISCONNECTED", "could not write to the server process's stdin", { cause })));
    }
    if (flushed) return Promise.resolve();
    // Backpressure: wait for 'drain', which ending the connection turns into a rejection.
    return new Promise<void>((resolve, reject) => this.drainWaiters.push({ resolve, reject }));
  }

  setProtocolVersion(_revision: string, rules?: WireRules): void {
    this.batches.follow(rules);
  }

  abandon(id: RequestId): void {
    this.sentBeforeFirstByte = this.sentBeforeFirstByte?.filter((message) => !("id" in message) || message.id !== id);
    this.stall.forget(id);
  }

  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    this.end();
    const exit = await this.stopTree();
    this.reportVerdict(); // a verdict given before close() is still why the connection ended
    this.report({ exitCode: exit?.exitCode ?? null, signal: exit?.signal ?? null });
  }

  // ---- reading ----------------------------------------------------------------------------

  private onStdout(chunk: Buffer): void {
    if (this.phase !== "open" && this.phase !== "draining") return; // ended: drained and dropped
    if (this.sentBeforeFirstByte) {
      const waiting = this.sentBeforeFirstByte;
      this.sentBeforeFirstByte = undefined;
      for (const message of waiting) this.stall.sent(message);
    }
    this.stall.activity();
    const { lines, tooLong } = this.framer.push(chunk);
    for (const line of lines) {
      this.deliver(line);
      if (this.phase !== "open" && this.phase !== "draining") return;
    }
    if (tooLong) this.fail(messageTooLarge(this.limits.maxMessageBytes, "received", KIND));
  }

  private deliver(line: string | null): void {
    let read: JsonRpcMessage | JsonRpcMessage[];
    try {
      if (line === null) {
        throw new McpTransportError("PROTOCOL", "received a line that is not valid UTF-8 on the server process's stdout");
      }
      read = this.batches.read(line);
    } catch (error) {
      if (this.settings.skipNonProtocol) {
        this.settings.onSkipped();
        return;
      }
      const what = error instanceof McpTransportError ? error.message : "received a line that is not JSON-RPC on the server process's stdout";
      // What the line said is not shown (it may hold anything); what to do about it is.
      this.fail(new McpTransportError("PROTOCOL", `${what}; ${NON_PROTOCOL_ADVICE}`, { cause: error }));
      return;
    }
    if (!Array.isArray(read)) {
      this.stall.received(read);
      this.events.message(read);
      return;
    }
    for (const message of read) {
      // A message of the batch may have ended the connection (a handler closing it).
      if (this.phase !== "open" && this.phase !== "draining") return;
      this.stall.received(message);
      this.events.message(message);
    }
  }

  private onStderr(chunk: Buffer): void {
    this.tail.push(chunk);
    const destination = this.settings.stderr;
    if (!destination) return;
    try {
      if (typeof destination === "function") {
        const text = this.stderrText.decode(chunk, { stream: true });
        if (text) destination(text);
      } else if (
        !destination.destroyed &&
        !destination.writableEnded &&
        (destination.writableLength ?? 0) < STDERR_FORWARD_MAX_QUEUED_BYTES
      ) {
        destination.write(chunk);
      }
    } catch {
      // The user's destination failing must not stop the draining of stderr.
    }
  }

  private onStderrEnd(): void {
    if (this.stderrEnded) return;
    this.stderrEnded = true;
    this.reportVerdict();
    const destination = this.settings.stderr;
    if (typeof destination === "function") {
      try {
        const rest = this.stderrText.decode();
        if (rest) destination(rest);
      } catch {
        // As above: the destination's failure is its own.
      }
    }
    this.settleIfDrained();
  }

  private onStdoutEnd(): void {
    if (this.stdoutEnded) return;
    this.stdoutEnded = true;
    this.peerGone();
  }

  // ---- ending -----------------------------------------------------------------------------

  /** The child exited, closed its stdout or its stdin broke: read what is left, then end. */
  private peerGone(): void {
    if (this.phase !== "open") {
      if (this.phase === "draining") this.settleIfDrained();
      return;
    }
    this.phase = "draining";
    // Nothing more can be written. Pending and new writes fail once the drain ends, not now: by
    // then the child's exit status and last stderr lines are known, and belong in their error.
    this.drainTimer = setTimeout(() => this.finishDraining(), EXIT_DRAIN_MS);
    this.settleIfDrained();
  }

  private settleIfDrained(): void {
    if (this.phase === "draining" && this.tree.directExited && this.stdoutEnded && this.stderrEnded) this.finishDraining();
  }

  private finishDraining(): void {
    if (this.phase !== "draining") return;
    const exit = this.tree.exitStatus;
    let what: string;
    if (exit?.signal) what = `the server process was ended by ${exit.signal}`;
    else if (exit) what = `the server process exited with code ${exit.exitCode}`;
    else what = "the server process closed its stdout";
    const error = new McpTransportError("DISCONNECTED", what, {
      exitCode: exit?.exitCode,
      signal: exit?.signal,
      stderrTail: this.tail.text() || undefined,
    });
    this.end();
    this.report(exit ? { error, exitCode: exit.exitCode, signal: exit.signal } : { error });
  }

  private onChildError(error: Error): void {
    if (this.phase === "starting") return; // start() reports it
    // A late start failure (cross-spawn reports a missing command on Windows after spawning).
    const code = (error as NodeJS.ErrnoException).code;
    const failure =
      code === "ENOENT" || code === "EACCES"
        ? this.settings.cannotStart(error, this.tail.text())
        : new McpTransportError("DISCONNECTED", "the server process failed", { cause: error });
    this.fail(failure);
  }

  /**
   * Our own verdict (LIMIT, PROTOCOL): fail closed at once, and stop the child. The report waits
   * for the child's stderr to end as it stops, at most EXIT_DRAIN_MS: what the child wrote there
   * before the output we refused may still be in its pipe, behind stdout read in the same turn,
   * and it belongs in the error's stderr tail.
   */
  private fail(error: McpTransportError): void {
    if (this.phase === "ended" || this.phase === "starting") return;
    this.end();
    this.verdict = { error, timer: setTimeout(() => this.reportVerdict(), EXIT_DRAIN_MS) };
    if (this.stderrEnded) this.reportVerdict();
  }

  private reportVerdict(): void {
    const verdict = this.verdict;
    if (!verdict) return;
    this.verdict = undefined;
    clearTimeout(verdict.timer);
    this.report({ error: this.withTail(verdict.error) });
  }

  /** Stops reading and writing and starts stopping the tree; reporting is the caller's. */
  private end(): void {
    if (this.phase === "ended") return;
    this.phase = "ended";
    // Lines held for the end of this turn leave before stdin closes (a cancel notice sent just
    // before close() is still sent).
    this.lines?.flushOrDestroy();
    clearTimeout(this.drainTimer);
    this.stall.stop();
    this.framer.reset();
    this.rejectDrainWaiters();
    void this.stopTree();
  }

  private stopTree(): Promise<ProcessExit | undefined> {
    this.stopped ??= this.tree.stop(this.settings.timings);
    return this.stopped;
  }

  private report(ending: ConnectionEnding): void {
    this.events.closed(ending);
  }

  /** The child's end of stdin is gone: the child is going, and the drain will say how. */
  private writeAfterStdinGone(): Promise<void> {
    this.peerGone();
    return this.phase === "draining" ? this.failWhenDrained() : Promise.reject(this.notOpen());
  }

  /** A write while draining: it fails, with what the drain learns, when the drain ends. */
  private failWhenDrained(): Promise<void> {
    return new Promise<void>((_, reject) => this.drainWaiters.push({ resolve: () => reject(this.notOpen()), reject }));
  }

  private resolveDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const waiter of waiters) waiter.resolve();
  }

  private rejectDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const waiter of waiters) waiter.reject(this.notOpen());
  }

  private notOpen(): McpTransportError {
    const exit = this.tree.exitStatus;
    const what = exit
      ? `the server process has exited (${exit.signal ? `ended by ${exit.signal}` : `code ${exit.exitCode}`})`
      : "the connection to the server process is closed";
    return new McpTransportError("DISCONNECTED", what, {
      exitCode: exit?.exitCode,
      signal: exit?.signal,
      stderrTail: this.tail.text() || undefined,
    });
  }

  private withTail(error: McpTransportError): McpTransportError {
    const tail = this.tail.text();
    return tail ? error.with({ stderrTail: tail }) : error;
  }
}

function checkWhole(where: string, name: string, value: unknown, min: number): number | undefined {
  return value === undefined ? undefined : checkWholeNumber(value, name, where, { min });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** An argument as a reader would type it: quoted only when it holds spaces or quotes. */
function quoteArg(arg: string): string {
  return arg === "" || /[\s"'\\]/.test(arg) ? JSON.stringify(arg) : arg;
}
