/**
 * The real `mcpwire` bin against the real authorization server (oidc-provider on loopback):
 * `login --no-browser` prints the URL, the test plays the browser from it and the browser comes
 * back to the bin's listener; later runs, without a terminal, use the kept tokens.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { runBin, startBin } from "../cli/helpers.js";
import { startOAuthStack, type OAuthStack } from "../fixtures/oauth/stack.js";
import { leaksIn } from "../helpers/redaction.js";

let stack: OAuthStack;
const env = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "mcpwire-oidc-bin-")) };

beforeAll(async () => {
  stack = await startOAuthStack();
});
afterAll(async () => {
  await stack?.close();
});

const printedUrl = (stderr: string): string | undefined => /^\s+(http:\/\/127\.0\.0\.1:\d+\/\S*auth\S*)$/m.exec(stderr)?.[1];

describe("mcpwire login against oidc-provider", () => {
  it("logs in from the printed URL, then a call without a terminal uses the kept tokens", { timeout: 60_000 }, async () => {
    const login = startBin(["login", stack.mcpUrl, "--no-browser"], { env });
    await expect.poll(() => printedUrl(login.stderr()), { timeout: 20_000 }).toBeDefined();
    const callback = await stack.playBrowser(new URL(printedUrl(login.stderr())!));
    expect(new URL(callback).hostname).toBe("127.0.0.1");
    const page = await fetch(callback);
    expect(page.status).toBe(200);
    await page.text();
    const loggedIn = await login.result;
    expect(loggedIn.code).toBe(ExitCode.OK);
    expect(loggedIn.stderr).toContain("logged in");

    const call = await runBin(["call", stack.mcpUrl, "whoami"], { env });
    expect(call.code).toBe(ExitCode.OK);
    expect(call.stdout).toContain("alice");
    const output = loggedIn.stdout + loggedIn.stderr + call.stdout + call.stderr;
    expect(leaksIn(stack.secrets, [output])).toEqual([]);
  });
});
