/**
 * Runs the built `mcpwire` bin as a subprocess, the way a user or a script runs it.
 * `npm test` builds first; while developing, run `npm run build` before these tests.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
export const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));

/** Words as one command line, each quoted the way a POSIX shell reads it back. */
export function commandLine(...words: string[]): string {
  return words.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(" ");
}

/** The contract server over stdio (tools echo, sleep, progress, crash...); `--import tsx` resolves from ROOT. */
export const CONTRACT_SERVER = commandLine(process.execPath, "--import", "tsx", `${FIXTURES}contract-server-stdio.ts`);
/** The reference server published on npm, over stdio. */
export const EVERYTHING_SERVER = commandLine(process.execPath, `${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`, "stdio");
/** A plain-JavaScript server that starts at once; its tool `silent` never answers. */
export const NEVER_ANSWERS_SERVER = commandLine(process.execPath, `${FIXTURES}stdio-never-answers.mjs`);

/** How long one run of the bin may take before the test gives up on it (a hang is a failure). */
const RUN_DEADLINE_MS = 25_000;

export interface BinResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  /** Variables on top of a copy of this process's, minus MCPWIRE_* so the host cannot steer a test. */
  env?: Record<string, string | undefined>;
}

export function runBin(args: readonly string[], options: RunOptions = {}): Promise<BinResult> {
  return startBin(args, options).result;
}

export interface RunningBin {
  child: ChildProcess;
  /** What it wrote on stderr so far. */
  stderr(): string;
  result: Promise<BinResult>;
}

/** Starts the bin and lets the test act while it runs (send it a signal, say). */
export function startBin(args: readonly string[], options: RunOptions = {}): RunningBin {
  if (!existsSync(BIN)) throw new Error(`${BIN} does not exist: run "npm run build" first`);
  const env: Record<string, string | undefined> = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("MCPWIRE_")));
  Object.assign(env, options.env);
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const result = new Promise<BinResult>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`mcpwire ${args.join(" ")} did not end within ${RUN_DEADLINE_MS} ms; stderr: ${stderr}`));
    }, RUN_DEADLINE_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, stderr: () => stderr, result };
}
