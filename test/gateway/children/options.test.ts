/** The children's classes refuse what they would not read, and say what they take. */
import { describe, expect, it } from "vitest";
import { ChildPool, GatewayChild, SessionRelay } from "../../../src/gateway/children/index.js";
import { echoServer } from "./helpers.js";

const owner = { message: () => {}, exited: () => {} };

describe("options of the children's classes", () => {
  it("refuses an unknown key with a did-you-mean", () => {
    expect(() => new ChildPool({ command: echoServer(), era: "modern", poolMaxx: 3 } as never)).toThrow(
      'ChildPool: unknown option "poolMaxx" (did you mean "poolMax"?)',
    );
    expect(() => new SessionRelay({ command: echoServer(), owner, principle: { principal: "a" } } as never)).toThrow(/did you mean "principal"/);
  });

  it("refuses bad numbers, naming the option and what it takes", () => {
    expect(() => new ChildPool({ command: echoServer(), era: "modern", poolMin: -1 })).toThrow(/"poolMin" must be a whole number from 0/);
    expect(() => new ChildPool({ command: echoServer(), era: "modern", poolMin: 5, poolMax: 2 })).toThrow(/"poolMin" \(5\) is larger than "poolMax" \(2\)/);
    expect(() => new ChildPool({ command: echoServer(), era: "modern", limits: { maxInFlight: 0 } })).toThrow(/"maxInFlight" must be a whole number/);
    expect(() => new ChildPool({ command: echoServer(), era: "modern", limits: { requestTimeoutMs: 1.5 } })).toThrow(/"requestTimeoutMs" must be a whole number of ms/);
    expect(() => new ChildPool({ command: echoServer(), era: "legacy" as never })).toThrow(/"era" must be "modern" or "legacy-stateless"/);
    for (const poolIdleMs of [-1, 1.5, "60s"]) {
      expect(() => new ChildPool({ command: echoServer(), era: "modern", poolIdleMs: poolIdleMs as number })).toThrow(/"poolIdleMs" must be a whole number of ms from 0/);
    }
  });

  it("refuses a childStderr that is neither log nor drop, and a stderr source without an era", async () => {
    expect(() => new ChildPool({ command: echoServer(), era: "modern", childStderr: "quiet" as never })).toThrow(
      /ChildPool: "childStderr" must be "log" .* or "drop" .*, got "quiet"/,
    );
    expect(() => new SessionRelay({ command: echoServer(), owner, childStderr: true as never })).toThrow(/SessionRelay: "childStderr" must be "log"/);
    expect(() => new SessionRelay({ command: echoServer(), owner, sessionId: 7 as never })).toThrow(/SessionRelay: "sessionId" must be a string, got 7/);
    await expect(
      GatewayChild.spawn({ command: echoServer(), owner: { unrelated: () => {}, exited: () => {} }, stderrLog: { era: "both" } as never }),
    ).rejects.toThrow(/GatewayChild: "stderrLog" must be \{ era: "modern" \| "legacy", sessionId\?: string \}/);
  });

  it("refuses an unknown key of a child before spawning anything", async () => {
    await expect(
      GatewayChild.spawn({ command: echoServer(), owner: { unrelated: () => {}, exited: () => {} }, limits: { timeoutMs: 5 } as never }),
    ).rejects.toThrow(/unknown option "timeoutMs"/);
  });
});
