/** The command line of `mcpwire gateway <url> --stdio`: usage errors exit 2 and write nothing on stdout (the host's). */
import { describe, expect, it } from "vitest";
import { runBin } from "../../cli/helpers.js";

describe("mcpwire gateway --stdio: the command line", () => {
  it("--help goes to stderr, stdout stays empty", async () => {
    const run = await runBin(["gateway", "--stdio", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("--header-file");
  });

  it.each([
    [["gateway", "--stdio"], "needs the URL"],
    [["gateway", "npx some-server", "--stdio"], "http://, https://, ws:// or wss:// URL"],
    [["gateway", "https://a.example/mcp", "https://b.example/mcp", "--stdio"], "takes one URL"],
    [["gateway", "https://a.example/mcp", "--stdio", "--listen", "127.0.0.1:1"], "--listen"],
    [["gateway", "https://a.example/mcp", "--stdio", "--timeout", "soon"], "is not a duration"],
    [["gateway", "https://a.example/mcp", "--stdio", "--proxy", "http://p:1", "--no-proxy"], "opposite things"],
  ])("%j is a usage error (%s)", async (argv, said) => {
    const run = await runBin(argv);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(said);
  });

  it("a MCPWIRE_GATEWAY_* variable, which only the HTTP gateway reads, is a usage error naming it, not its value", async () => {
    const run = await runBin(["gateway", "http://127.0.0.1:9/mcp", "--stdio"], { env: { MCPWIRE_GATEWAY_REQUEST_TIMEOUT: "120s-unread" } });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("MCPWIRE_GATEWAY_REQUEST_TIMEOUT");
    expect(run.stderr).not.toContain("120s-unread");
  });
});
