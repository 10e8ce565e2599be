/**
 * The real `mcpwire` bin on a real terminal: a pseudo-terminal from util-linux `script`, so that
 * stdin and stderr are TTYs as a person's shell has them. A form elicitation is answered by
 * typing, the terminal echoing and editing the lines; Ctrl-C during a question interrupts the
 * run (exit 130), since the terminal stays in its line mode. Without a terminal (stdin not a TTY)
 * the bin declares no elicitation.
 */
import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { BIN, EVERYTHING_SERVER, FIXTURES, ROOT, commandLine, runBin } from "./helpers.js";

const SERVER = commandLine(process.execPath, "--import", "tsx", `${FIXTURES}url-elicitation-server.ts`, "stdio");
/** util-linux `script`, which runs a command on a new pseudo-terminal. */
const hasScript = spawnSync("script", ["--version"], { encoding: "utf8" }).stdout?.includes("util-linux") === true;

/** The bin run on a pseudo-terminal; what it writes (stdout and stderr, with the echo) comes back as one text. */
function onTerminal(args: string[]) {
  const command = commandLine(process.execPath, BIN, ...args);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("MCPWIRE_")));
  const child = spawn("script", ["--quiet", "--flush", "--return", "--command", command, "/dev/null"], {
    cwd: ROOT,
    env: { ...env, SHELL: "/bin/sh", TERM: "dumb" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
  const code = new Promise<number | null>((resolve) => child.on("close", resolve));
  let read = 0;
  return {
    code,
    screen: () => screen,
    /** Waits for `text` on the screen, after what was already seen, then types `keys`. */
    async type(text: string, keys: string): Promise<void> {
      await expect.poll(() => screen.indexOf(text, read), { timeout: 20_000 }).toBeGreaterThanOrEqual(0);
      read = screen.indexOf(text, read) + text.length;
      child.stdin.write(keys);
    },
  };
}

describe.skipIf(!hasScript)("mcpwire on a pseudo-terminal", () => {
  it("answers a form by typing, each line echoed by the terminal", async () => {
    const run = onTerminal(["call", SERVER, "ask_form"]);
    await run.type("Enter to answer, d to decline, c to cancel: ", "\r");
    await run.type("[1/3] Name (name)", "Ada\r");
    await run.type("[2/3] age", "36\r");
    await run.type("(Enter keeps Green) > ", "\r");
    await run.type("Enter to send them, e to edit, d to decline, c to cancel: ", "\r");
    expect(await run.code).toBe(ExitCode.OK);
    expect(run.screen()).toContain('answered accept {"name":"Ada","age":36,"color":"g"}');
  });

  it("a task's clarifying question (server-everything's simulate-research-query) is asked on the terminal, and the report follows the answer", async () => {
    const run = onTerminal(["call", EVERYTHING_SERVER, "simulate-research-query", "topic=python", "ambiguous=true"]);
    await run.type("Enter to answer, d to decline, c to cancel: ", "\r");
    await run.type("2) Python snake species", "2\r");
    await run.type("Enter to send them, e to edit, d to decline, c to cancel: ", "\r");
    expect(await run.code).toBe(ExitCode.OK);
    // The report names the value chosen (the second of the choices), which only the answer carries.
    expect(run.screen()).toContain("# Research Report: python (snake)");
    expect(run.screen()).toContain("- **Clarification**: snake");
  });

  it("Ctrl-C during a question interrupts the run (exit 130): the terminal stays in its line mode", async () => {
    const run = onTerminal(["call", SERVER, "ask_url"]);
    await run.type("Enter to open it in your browser, d to decline, c to cancel: ", "\u0003");
    expect(await run.code).toBe(ExitCode.INTERRUPTED);
    expect(run.screen()).toContain("mcpwire: interrupted; the request was cancelled");
  });
});

describe("mcpwire without a terminal", () => {
  it("declares no elicitation capability when stdin is not a terminal", async () => {
    const { code, stdout } = await runBin(["call", SERVER, "client_capabilities"]);
    expect(code).toBe(ExitCode.OK);
    expect(JSON.parse(stdout.trim())).toEqual({});
  });
});
