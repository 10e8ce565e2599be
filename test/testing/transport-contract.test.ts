/**
 * The exported contract suite (`mcpwire/testing`): its reference server passes it in memory, and
 * it fails transports that break the contract, each in the test that checks what they break.
 */
import { describe, expect, it } from "vitest";
import { MemoryTransport, type ConnectionEvents, type McpConnection, type OpenOptions } from "../../src/index.js";
import { createContractServer, transportContract, type TransportContractOptions } from "../../src/testing.js";

const working = () => new MemoryTransport(createContractServer(), "reference contract server");
const unstartable = () =>
  new MemoryTransport({
    connect: async () => {
      throw new Error("this server cannot start");
    },
  });

// The reference server, reached in memory, through this runner.
transportContract({ name: "memory, reference contract server", describe, it, transport: working, unavailable: unstartable });

/** A memory transport that hands its wire other ceilings than the session's: it keeps neither. */
class CeilingsIgnored extends MemoryTransport {
  constructor(private readonly ignored: Partial<OpenOptions["limits"]>) {
    super(createContractServer(), "a transport that ignores its ceilings");
  }

  override open(events: ConnectionEvents, options: OpenOptions): Promise<McpConnection> {
    return super.open(events, { ...options, limits: { ...options.limits, ...this.ignored } });
  }
}

/** Runs the suite's tests outside any runner; returns the titles of those that failed, with why. */
async function failuresOf(target: Omit<TransportContractOptions, "describe" | "it">, only?: RegExp): Promise<Record<string, string>> {
  const tests: [string, () => Promise<void>][] = [];
  transportContract({ ...target, describe: (_name, body) => body(), it: (title, body) => tests.push([title, body]) });
  const failed: Record<string, string> = {};
  for (const [title, body] of tests) {
    if (only && !only.test(title)) continue;
    await body().catch((error: unknown) => (failed[title] = (error as Error).message));
  }
  return failed;
}

describe("the contract suite fails a transport that breaks the contract", () => {
  it("in the two tests of maxMessageBytes, and only there, when the wire does not keep it", async () => {
    const failed = await failuresOf({ name: "no byte ceiling", transport: () => new CeilingsIgnored({ maxMessageBytes: Number.MAX_SAFE_INTEGER }), unavailable: unstartable });
    expect(Object.keys(failed).sort()).toEqual([
      "maxMessageBytes: a reply past the ceiling fails with LIMIT",
      "maxMessageBytes: a request past the ceiling fails with LIMIT before it is sent",
    ]);
  });

  it("within its own deadline when the wire does not keep readTimeoutMs, and the test says so", async () => {
    const failed = await failuresOf(
      { name: "no read stall", transport: () => new CeilingsIgnored({ readTimeoutMs: 600_000 }), unavailable: unstartable, testTimeoutMs: 1_500 },
      /^readTimeoutMs/,
    );
    expect(Object.values(failed)).toEqual([
      'contract: no read stall: "readTimeoutMs: a server that stays silent while a request waits fails it with TIMEOUT" did not finish within 1500 ms',
    ]);
  });

  it("when a server that cannot be reached is reached", async () => {
    const failed = await failuresOf({ name: "always reachable", transport: working, unavailable: working }, /UNAVAILABLE/);
    expect(Object.values(failed)).toEqual(["expected a rejection, got a result"]);
  });

  it("when something is left running after close(), as its assertNothingRunning says", async () => {
    const failed = await failuresOf(
      {
        name: "leaves a socket open",
        transport: working,
        unavailable: unstartable,
        assertNothingRunning: () => {
          throw new Error("a socket is still open");
        },
      },
      /^close\(\)/,
    );
    expect(Object.values(failed)).toEqual(["a socket is still open"]);
  });
});
