// The contract suite under node:test, as a user's own test file would run it:
//   node --import tsx --test test/examples/own-transport/contract.node-test.ts
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createContractServer, transportContract } from "../../../src/testing.js";
import { serveOnUnixSocket } from "./unix-socket-server.js";
import { UnixSocketTransport } from "./unix-socket-transport.js";

const dir = mkdtempSync(join(tmpdir(), "mcpwire-unix-"));
const path = join(dir, "contract.sock");
const server = await serveOnUnixSocket(createContractServer(), path);
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

transportContract({
  name: "unix-socket",
  describe,
  it,
  transport: () => new UnixSocketTransport(path),
  unavailable: () => new UnixSocketTransport(join(dir, "nobody-listens.sock")),
  assertNothingRunning: () => server.allClosed(),
});
