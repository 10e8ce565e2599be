/**
 * The real `mcpwire` bin against a server that asks for an OAuth login: without a terminal a
 * command fails at once naming `mcpwire login`; `login` prints the URL (`--no-browser`), takes
 * the browser's return on its loopback listener and keeps the tokens, readable by the user
 * alone; later commands use them; `logout` forgets them, and says so when there was nothing to
 * forget. The test plays the browser from the printed URL.
 */
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import type { ScriptedEndpoint } from "../fixtures/http-endpoint.js";
import { startProtectedEndpoint } from "../fixtures/oauth/protected-endpoint.js";
import { startScriptedAuthorizationServer, type ScriptedAuthorizationServer } from "../fixtures/oauth/scripted-authorization-server.js";
import { leaksIn } from "../helpers/redaction.js";
import { runCli } from "../../src/cli/run.js";
import { runBin, startBin, type BinResult } from "./helpers.js";

let as: ScriptedAuthorizationServer;
let endpoint: ScriptedEndpoint;
const home = mkdtempSync(join(tmpdir(), "mcpwire-login-"));
const env = { XDG_CONFIG_HOME: home };
const authDir = join(home, "mcpwire", "auth");
const outputs: BinResult[] = [];

beforeAll(async () => {
  as = await startScriptedAuthorizationServer();
  endpoint = await startProtectedEndpoint(as);
});
afterAll(async () => {
  await Promise.all([endpoint?.close(), as?.close()]);
});

async function run(args: string[]): Promise<BinResult> {
  const result = await runBin(args, { env });
  outputs.push(result);
  return result;
}

/** The authorization URL the bin printed on stderr, once it has. */
function printedUrl(stderr: string): string | undefined {
  return /^\s+(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stderr)?.[1];
}

/** Plays the browser: the authorization server redirects at once; the redirect goes to the bin's listener. */
async function playBrowser(authorizationUrl: string): Promise<void> {
  const answer = await fetch(authorizationUrl, { redirect: "manual" });
  await answer.body?.cancel();
  const callback = answer.headers.get("location")!;
  expect(new URL(callback).hostname).toBe("127.0.0.1");
  const page = await fetch(callback);
  expect(page.status).toBe(200);
  await page.text();
}

describe("mcpwire login, logout, and a server that asks for a login", () => {
  it("without a terminal, a command fails at once, names `mcpwire login`, and registers nothing", async () => {
    const { code, stderr } = await run(["tools", endpoint.url]);
    expect(code).toBe(ExitCode.PROTOCOL);
    expect(stderr).toContain(`mcpwire login ${endpoint.url}`);
    expect(as.requests.filter((request) => request.path === "/register" || request.path === "/authorize")).toEqual([]);
  });

  it("login prints the URL, takes the browser's return, and keeps the tokens readable by the user alone", async () => {
    const bin = startBin(["login", endpoint.url, "--no-browser"], { env });
    await expect.poll(() => printedUrl(bin.stderr()), { timeout: 20_000 }).toBeDefined();
    const url = printedUrl(bin.stderr())!;
    expect(new URL(url).searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    await playBrowser(url);
    const result = await bin.result;
    outputs.push(result);
    expect(result.code).toBe(ExitCode.OK);
    expect(result.stderr).toContain("logged in");
    const files = readdirSync(authDir);
    expect(files).toHaveLength(1);
    if (process.platform !== "win32") {
      expect(statSync(join(authDir, files[0]!)).mode & 0o777).toBe(0o600);
      expect(statSync(authDir).mode & 0o777).toBe(0o700);
    }
  });

  it("a later command uses the kept tokens, without a terminal and without a new login", async () => {
    const logins = as.requests.filter((request) => request.path === "/authorize").length;
    const { code, stdout } = await run(["tools", endpoint.url]);
    expect(code).toBe(ExitCode.OK);
    expect(stdout).toMatch(/^echo/m);
    expect(as.requests.filter((request) => request.path === "/authorize").length).toBe(logins);
  });

  it("logout forgets them: the next command asks for a login again", async () => {
    const out = await run(["logout", endpoint.url]);
    expect(out.code).toBe(ExitCode.OK);
    expect(out.stderr).toMatch(/^mcpwire: forgot the tokens and registrations stored for /m);
    expect(readdirSync(authDir)).toEqual([]);
    const again = await run(["tools", endpoint.url]);
    expect(again.code).toBe(ExitCode.PROTOCOL);
    expect(again.stderr).toContain("mcpwire login");
  });

  it("logout where nothing is stored says so (and still exits 0), rather than claiming to forget tokens", async () => {
    const out = await run(["logout", endpoint.url]);
    expect(out.code).toBe(ExitCode.OK);
    expect(out.stderr).toMatch(/^mcpwire: no tokens or registrations were stored for http:\/\/127\.0\.0\.1:\d+\S*; nothing to forget$/m);
    expect(out.stderr).not.toContain("forgot");
  });

  it("on a terminal, a command the server refuses opens the browser on the login, then runs", async () => {
    const opened: string[] = [];
    const stderr: string[] = [];
    const stdout: string[] = [];
    const code = await runCli({
      argv: ["tools", endpoint.url],
      stdout: { write: (text: string) => void stdout.push(text) } as never,
      stderr: { write: (text: string) => void stderr.push(text) } as never,
      env: { ...process.env, ...env },
      cwd: process.cwd(),
      signal: new AbortController().signal,
      interactive: true,
      openBrowser: (url) => {
        opened.push(url);
        void playBrowser(url);
      },
    });
    expect(code).toBe(ExitCode.OK);
    expect(opened).toHaveLength(1);
    // The URL is printed too, for a machine without a browser.
    expect(stderr.join("")).toContain(opened[0]!);
    expect(stdout.join("")).toMatch(/^echo/m);
    outputs.push({ code, stdout: stdout.join(""), stderr: stderr.join("") });
  });

  it("login and logout refuse a server run as a command", async () => {
    const { code, stderr } = await run(["login", `${process.execPath} server.js`]);
    expect(code).toBe(ExitCode.USAGE);
    expect(stderr).toMatch(/login applies to servers reached by an http\(s\) URL/);
  });

  it("never prints a token, a refresh token or a code", () => {
    const text = outputs.map((output) => output.stdout + output.stderr).join("\n");
    expect(as.issued.length).toBeGreaterThan(0);
    expect(leaksIn(as.issued.flatMap((token) => [token.access, token.refresh!]), [text])).toEqual([]);
    expect(text).not.toMatch(/code-\d+-secret/);
  });
});
