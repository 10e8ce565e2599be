/**
 * The README's own transport (test/examples/own-transport): a transport over a Unix domain
 * socket, registered and reached from a declaration, passing the exported contract suite under
 * vitest here and under node:test in a subprocess, as a user's test runner would run it.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, registerTransport, transportFor, type RegisteredServerConfig, type TransportRegistration } from "../../src/index.js";
import { createContractServer, transportContract } from "../../src/testing.js";
import { failure } from "../helpers/failure.js";
import { serveOnUnixSocket, type UnixSocketServer } from "./own-transport/unix-socket-server.js";
import { UnixSocketTransport, unixSocketFactory, type UnixSocketKeys } from "./own-transport/unix-socket-transport.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "mcpwire-unix-"));
const path = join(dir, "handbook.sock");
const declaration: RegisteredServerConfig<UnixSocketKeys> = { name: "handbook", transport: "unix-socket", path, maxMessageBytes: 1_000_000 };

let server: UnixSocketServer;
let registration: TransportRegistration;
beforeAll(async () => {
  server = await serveOnUnixSocket(createContractServer(), path);
  registration = registerTransport("unix-socket", unixSocketFactory);
});
afterAll(async () => {
  registration.unregister();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("your own transport: a Unix domain socket", () => {
  it("is reached from a declaration naming it, with the declared ceilings kept at its wire", async () => {
    await using client = await connect(declaration);
    expect(client.transportKind).toBe("unix-socket");
    expect(client.session.limits.maxMessageBytes).toBe(1_000_000);
    expect((await client.callTool("echo", { text: "over the socket" })).content).toEqual([{ type: "text", text: "over the socket" }]);
    const error = await failure(client.callTool("blob", { bytes: 1_500_000 }));
    expect(error.reason).toBe("LIMIT");
    expect(error.limitBytes).toBe(1_000_000);
  });

  it("passes the same contract suite under node:test, run as a subprocess", async () => {
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "--test", "--test-reporter=tap", "test/examples/own-transport/contract.node-test.ts"],
      { cwd: ROOT, timeout: 120_000 },
    );
    const tests = contractTitles().length;
    expect(stdout).toContain(`# tests ${tests}\n`);
    expect(stdout).toContain(`# pass ${tests}\n`);
    expect(stdout).toContain("# fail 0\n");
  }, 150_000);

  it("is the code the README shows, with the package's import paths", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("### Your own transport"), readme.indexOf("\n## ", readme.indexOf("### Your own transport")));
    const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);
    for (const file of ["unix-socket-transport.ts", "contract.node-test.ts"]) {
      const source = readFileSync(join(ROOT, "test/examples/own-transport", file), "utf8")
        .replaceAll('"../../../src/index.js"', '"mcpwire"')
        .replaceAll('"../../../src/testing.js"', '"mcpwire/testing"');
      expect(blocks, `the README shows ${file}`).toContain(source);
    }
  });
});

// The same suite in this runner, on the transport the registry builds from the declaration.
transportContract({
  name: "unix-socket, built from a declaration",
  describe,
  it,
  transport: () => transportFor(declaration),
  unavailable: () => new UnixSocketTransport(join(dir, "nobody-listens.sock")),
  assertNothingRunning: () => server.allClosed(),
});

/** The titles of the suite's tests, to count them in another runner's report. */
function contractTitles(): string[] {
  const titles: string[] = [];
  transportContract({
    name: "count",
    describe: (_name, body) => body(),
    it: (title) => titles.push(title),
    transport: () => transportFor(declaration),
    unavailable: () => transportFor(declaration),
  });
  return titles;
}
