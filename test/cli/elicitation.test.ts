/**
 * The `mcpwire` command answers a server's questions on the terminal (client/elicitation): form
 * mode asks each field, checks it, and shows the answers for review; URL mode shows the URL and
 * its domain, opens the browser only on the user's Enter (`--no-browser`: never), then waits for
 * the user's Enter or the server's completion. Without a terminal no elicitation is declared.
 * Runs `runCli` with a scripted keyboard against real servers over stdio.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { runCli } from "../../src/cli/run.js";
import { EVERYTHING_SERVER, FIXTURES, ROOT, commandLine } from "./helpers.js";

const SERVER = commandLine(process.execPath, "--import", "tsx", `${FIXTURES}url-elicitation-server.ts`, "stdio");

/** A run of the command on a scripted terminal: the test answers each question once it is asked. */
function terminal(argv: string[], options: { interactive?: boolean } = {}) {
  const stdin = new PassThrough();
  const opened: string[] = [];
  let stdout = "";
  let stderr = "";
  let read = 0;
  const code = runCli({
    argv,
    stdout: { write: (text: string) => void (stdout += text) },
    stderr: { write: (text: string) => void (stderr += text) },
    env: { ...process.env },
    cwd: ROOT,
    signal: new AbortController().signal,
    interactive: options.interactive ?? true,
    stdin,
    openBrowser: (url) => void opened.push(url),
  });
  return {
    code,
    opened,
    stdout: () => stdout,
    stderr: () => stderr,
    /** Waits for `text` on stderr, after what was already seen. */
    async waitFor(text: string): Promise<void> {
      await expect.poll(() => stderr.indexOf(text, read), { timeout: 20_000 }).toBeGreaterThanOrEqual(0);
      read = stderr.indexOf(text, read) + text.length;
    },
    /** Waits for `prompt`, then types `line` and Enter. */
    async answer(prompt: string, line = ""): Promise<void> {
      await this.waitFor(prompt);
      stdin.write(`${line}\n`);
    },
    /** Types lines without waiting (answers to fields, which may be typed ahead). */
    type(...lines: string[]): void {
      for (const line of lines) stdin.write(`${line}\n`);
    },
    end(): void {
      stdin.end();
    },
  };
}

describe("mcpwire on a terminal: form-mode elicitation", () => {
  it("asks each field, refuses what does not fit, keeps defaults, lets the answers be edited, then sends them", async () => {
    const run = terminal(["call", SERVER, "ask_form"]);
    await run.answer("Enter to answer, d to decline, c to cancel: ");
    await run.answer("[1/3] Name (name): text, at least 1 character, required\n  > ", "");
    await run.answer("This field is required.\n  > ", "Ada");
    await run.answer("[2/3] age: a whole number from 0 to 150\n        In years\n  > ", "200");
    await run.answer("it must be from 0 to 150.\n  > ", "36");
    // Enter keeps the default; a second Enter, typed ahead of the review's question, must not send the answers.
    await run.answer("[3/3] color: one of: 1) Red  2) Green (its number or its value)\n  (Enter keeps Green) > ", "\n");
    await run.waitFor("Your answers:\n    Name (name): Ada\n    age: 36\n    color: Green\n");
    await run.answer("Enter to send them, e to edit, d to decline, c to cancel: ", "e");
    await run.answer("(Enter keeps Ada) > ", "");
    await run.answer("(Enter keeps 36) > ", "37");
    await run.answer("(Enter keeps Green) > ", "red");
    await run.answer("Enter to send them, e to edit, d to decline, c to cancel: ", "");
    expect(await run.code).toBe(ExitCode.OK);
    expect(run.stdout()).toContain('answered accept {"name":"Ada","age":37,"color":"r"}');
    expect(run.stderr()).toContain(`mcpwire: ${SERVER} asks you for information:\n  Tell us about you.\n`);
  });

  it("declines at the first question, and cancels when the input ends", async () => {
    const declined = terminal(["call", SERVER, "ask_form"]);
    await declined.answer("Enter to answer, d to decline, c to cancel: ", "d");
    expect(await declined.code).toBe(ExitCode.OK);
    expect(declined.stdout()).toContain("answered decline null");

    const ended = terminal(["call", SERVER, "ask_form"]);
    await expect.poll(() => ended.stderr(), { timeout: 20_000 }).toContain("Enter to answer");
    ended.end();
    expect(await ended.code).toBe(ExitCode.OK);
    expect(ended.stdout()).toContain("answered cancel null");
  });

  it("answers server-everything's form of every field type", async () => {
    const run = terminal(["call", EVERYTHING_SERVER, "trigger-elicitation-request"]);
    await run.answer("Enter to answer, d to decline, c to cancel: ");
    // name, check, firstLine, email, homepage, birthdate, integer, number, four enums and the legacy one.
    run.type("Ada Lovelace", "y", "", "ada@example.com", "https://ada.example", "1815-12-10", "", "2.5", "Rachel", "1,3", "3", "", "Dogs");
    await run.answer("Enter to send them, e to edit, d to decline, c to cancel: ");
    expect(await run.code).toBe(ExitCode.OK);
    const text = run.stdout();
    for (const line of ["- Name: Ada Lovelace", "- Agreed to terms: true", "- Email: ada@example.com", "- Birthdate: 1815-12-10", "- Favorite Integer: 42", "- Favorite Number: 2.5"]) {
      expect(text).toContain(line);
    }
    expect(text).toContain('"titledSingleSelectEnum": "hero-3"');
    expect(text).toContain('"untitledMultipleSelectEnum": [\n');
    expect(text).toContain('"legacyTitledEnum": "pet-2"');
  });
});

describe("mcpwire on a terminal: URL-mode elicitation", () => {
  it("shows the URL and its domain, opens the browser on Enter only, then waits for the user's Enter", async () => {
    const run = terminal(["call", SERVER, "ask_url"]);
    await run.waitFor("  URL:    https://pay.example.com/checkout?order=7\n  Domain: pay.example.com\n");
    expect(run.opened).toEqual([]);
    await run.answer("Enter to open it in your browser, d to decline, c to cancel: ");
    await run.answer("Press Enter when you are done: ");
    expect(await run.code).toBe(ExitCode.OK);
    expect(run.opened).toEqual(["https://pay.example.com/checkout?order=7"]);
    expect(run.stdout()).toContain("answered accept");
    expect(run.stderr()).toContain("Pay for order 7.");
  });

  it("goes on by itself when the server says the elicitation is complete", async () => {
    const run = terminal(["call", SERVER, "ask_url_completes"]);
    await run.answer("Enter to open it in your browser, d to decline, c to cancel: ");
    expect(await run.code).toBe(ExitCode.OK);
    expect(run.stderr()).toContain("The server says it is done.");
    expect(run.stdout()).toContain("answered accept");
  });

  it("--no-browser never opens it; d declines", async () => {
    const manual = terminal(["call", SERVER, "ask_url", "--no-browser"]);
    await manual.answer("Open it in a browser yourself, then press Enter; d to decline, c to cancel: ");
    await manual.answer("Press Enter when you are done: ");
    expect(await manual.code).toBe(ExitCode.OK);
    expect(manual.opened).toEqual([]);
    expect(manual.stdout()).toContain("answered accept");

    const declined = terminal(["call", SERVER, "ask_url"]);
    await declined.answer("Enter to open it in your browser, d to decline, c to cancel: ", "d");
    expect(await declined.code).toBe(ExitCode.OK);
    expect(declined.opened).toEqual([]);
    expect(declined.stdout()).toContain("answered decline");
  });

  it("runs the elicitation a -32042 asks for, then the call again (server-everything)", async () => {
    const run = terminal(["call", EVERYTHING_SERVER, "trigger-url-elicitation", "url=https://example.com/connect", "errorPath=true"]);
    await run.waitFor("  Domain: modelcontextprotocol.io\n  (The server refused tools/call until this is done; it is sent again after.)\n");
    await run.answer("Enter to open it in your browser, d to decline, c to cancel: ");
    await run.answer("Press Enter when you are done: ");
    // The call sent again: now the server's own request for the URL it was given.
    await run.waitFor("  Domain: example.com\n");
    await run.answer("Enter to open it in your browser, d to decline, c to cancel: ");
    await run.answer("Press Enter when you are done: ");
    expect(await run.code).toBe(ExitCode.OK);
    expect(run.opened).toEqual(["https://modelcontextprotocol.io/", "https://example.com/connect"]);
    expect(run.stdout()).toContain("User completed the URL elicitation flow");
  });

  it("a declined -32042 elicitation fails the call with PROTOCOL, saying so", async () => {
    const run = terminal(["call", EVERYTHING_SERVER, "trigger-url-elicitation", "url=https://example.com/c2", "errorPath=true"]);
    await run.answer("Enter to open it in your browser, d to decline, c to cancel: ", "d");
    expect(await run.code).toBe(ExitCode.PROTOCOL);
    expect(run.stderr()).toContain("the server requires a URL elicitation, and the user declined it");
  });
});

describe("mcpwire without a terminal", () => {
  it("declares no elicitation capability, so the server asks nothing", async () => {
    const run = terminal(["call", SERVER, "client_capabilities"], { interactive: false });
    expect(await run.code).toBe(ExitCode.OK);
    expect(JSON.parse(run.stdout().trim())).toEqual({});
  });
});
