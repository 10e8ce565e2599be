/**
 * The built `mcpwire gateway <url> --stdio` as a desktop host runs it: a child process whose
 * stdin the test writes JSON-RPC lines to and whose stdout it reads them from. Every wait is for
 * an outcome (a line, the exit), bounded so that a hang fails the test instead of stalling it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { BIN, ROOT } from "../../cli/helpers.js";

/** How long a test waits for one line or for the exit before it calls the bridge hung. */
export const BRIDGE_WAIT_MS = 20_000;

export type Message = Record<string, unknown> & { id?: unknown; method?: string; result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };

export interface BridgeProcess {
  child: ChildProcess;
  send(message: Record<string, unknown>): void;
  /** Resolves with the first message on stdout (from the start) that `match` accepts. */
  next(match: (message: Message) => boolean, what?: string): Promise<Message>;
  /** The answer to request `id`. */
  answer(id: unknown): Promise<Message>;
  /** Every line written on stdout so far, parsed (a line that is not JSON fails the test at once). */
  readonly messages: Message[];
  stderr(): string;
  /** Ends stdin, as a host that stops the server does. */
  closeStdin(): void;
  /** Resolves with the exit code once the process exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills the process if it still runs, and waits for it. */
  stop(): Promise<void>;
}

export function startBridge(url: string, args: readonly string[] = [], env: Record<string, string | undefined> = {}): BridgeProcess {
  if (!existsSync(BIN)) throw new Error(`${BIN} does not exist: run "npm run build" first`);
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("MCPWIRE_")));
  const child = spawn(process.execPath, [BIN, "gateway", url, "--stdio", ...args], { cwd: ROOT, env: { ...base, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  const messages: Message[] = [];
  const waiters: { match: (message: Message) => boolean; resolve: (message: Message) => void }[] = [];
  let stderr = "";
  let partial = "";
  let notJson: string | undefined;
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    partial += chunk;
    const lines = partial.split("\n");
    partial = lines.pop()!;
    for (const line of lines) {
      let message: Message;
      try {
        message = JSON.parse(line) as Message;
      } catch {
        notJson ??= line;
        continue;
      }
      messages.push(message);
      for (const waiter of [...waiters]) {
        if (waiter.match(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    }
  });
  child.stdin!.on("error", () => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const next = (match: (message: Message) => boolean, what = "a message"): Promise<Message> => {
    if (notJson !== undefined) return Promise.reject(new Error(`the bridge wrote a line on stdout that is not JSON: ${notJson}`));
    const seen = messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} on the bridge's stdout within ${BRIDGE_WAIT_MS} ms; stderr: ${stderr}`)), BRIDGE_WAIT_MS);
      waiters.push({ match, resolve: (message) => (clearTimeout(timer), resolve(message)) });
    });
  };
  return {
    child,
    send: (message) => child.stdin!.write(`${JSON.stringify(message)}\n`),
    next,
    answer: (id) => next((message) => message.id === id && !("method" in message), `answer to ${JSON.stringify(id)}`),
    messages,
    stderr: () => stderr,
    closeStdin: () => child.stdin!.end(),
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** A legacy host's opening: `initialize` (id 0), then `notifications/initialized` once answered. */
export async function openLegacy(bridge: BridgeProcess, capabilities: Record<string, unknown> = {}): Promise<Message> {
  bridge.send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "bridge-test-host", version: "1.0.0" } },
  });
  const answer = await bridge.answer(0);
  bridge.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return answer;
}

/** Resolves with the exit, or rejects when the process did not exit in time. */
export function exitOf(bridge: BridgeProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return Promise.race([
    bridge.exited,
    new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(`the bridge did not exit within ${BRIDGE_WAIT_MS} ms; stderr: ${bridge.stderr()}`)), BRIDGE_WAIT_MS).unref()),
  ]);
}
