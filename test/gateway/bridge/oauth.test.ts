/**
 * The bridge against a remote behind a real authorization server (oidc-provider on loopback):
 * stdin and stdout are the host's, so no login is started; the tokens a prior `mcpwire login`
 * kept are used and refreshed, and without them every request is answered with an error that
 * names `mcpwire login <url>`. No credential appears on stdout or stderr.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../../src/cli/exit-codes.js";
import { startBin } from "../../cli/helpers.js";
import { startOAuthStack, type OAuthStack } from "../../fixtures/oauth/stack.js";
import { leaksIn } from "../../helpers/redaction.js";
import { exitOf, openLegacy, startBridge } from "./bridge-process.js";

let stack: OAuthStack;
// Shorter than the refresh margin (30 s): every use of a kept access token refreshes it first.
const ACCESS_TOKEN_TTL_S = 20;

beforeAll(async () => {
  stack = await startOAuthStack({ accessTokenTtl: ACCESS_TOKEN_TTL_S });
});
afterAll(async () => {
  await stack?.close();
});

const printedUrl = (stderr: string): string | undefined => /^\s+(http:\/\/127\.0\.0\.1:\d+\/\S*auth\S*)$/m.exec(stderr)?.[1];

describe("the bridge and OAuth", () => {
  it("without kept tokens: answers with an error naming mcpwire login, and starts no login", async () => {
    const env = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "mcpwire-bridge-oauth-none-")) };
    const bridge = startBridge(stack.mcpUrl, [], env);
    try {
      bridge.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "h", version: "1" } } });
      const answer = await bridge.answer(0);
      expect(answer.error?.message).toContain(`mcpwire login ${stack.mcpUrl}`);
      expect(answer.error?.data).toMatchObject({ authStep: "authorization" });
      expect(stack.seen.authorizationUrls).toHaveLength(0);
      bridge.closeStdin();
      expect((await exitOf(bridge)).code).toBe(0);
    } finally {
      await bridge.stop();
    }
  });

  it("with tokens from mcpwire login: calls through, refreshing the access token", { timeout: 60_000 }, async () => {
    const env = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "mcpwire-bridge-oauth-kept-")) };
    const login = startBin(["login", stack.mcpUrl, "--no-browser"], { env });
    await expect.poll(() => printedUrl(login.stderr()), { timeout: 20_000 }).toBeDefined();
    const page = await fetch(await stack.playBrowser(new URL(printedUrl(login.stderr())!)));
    await page.text();
    const loggedIn = await login.result;
    expect(loggedIn.code).toBe(ExitCode.OK);
    const refreshesBefore = stack.seen.tokenRequests.filter((request) => request.grantType === "refresh_token" && request.status === 200).length;
    const loginsBefore = stack.seen.authorizationUrls.length;

    const bridge = startBridge(stack.mcpUrl, [], env);
    try {
      await openLegacy(bridge);
      bridge.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } });
      const answer = await bridge.answer(1);
      expect(JSON.stringify(answer.result)).toContain("alice");
      bridge.closeStdin();
      expect((await exitOf(bridge)).code).toBe(0);
    } finally {
      await bridge.stop();
    }
    expect(stack.seen.tokenRequests.filter((request) => request.grantType === "refresh_token" && request.status === 200).length).toBeGreaterThan(refreshesBefore);
    expect(stack.seen.authorizationUrls.length).toBe(loginsBefore);
    const output = [JSON.stringify(bridge.messages), bridge.stderr()];
    expect(leaksIn(stack.secrets, output)).toEqual([]);
  });
});
