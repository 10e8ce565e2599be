/** `checkGatewayOptions`: unknown keys refused with a did-you-mean, bad values named, defaults filled in. */
import { describe, expect, it } from "vitest";
import { checkGatewayOptions } from "../../../src/gateway/check-options.js";
import { GATEWAY_DEFAULTS } from "../../../src/gateway/gateway-options.js";

const target = "node server.js";

describe("checkGatewayOptions", () => {
  it("fills in every default and splits the target without a shell", () => {
    const resolved = checkGatewayOptions({ target: "npx -y '@scope/server' --root 'My Files'" });
    expect(resolved.target).toEqual({ command: "npx", args: ["-y", "@scope/server", "--root", "My Files"], env: {}, envAllow: [] });
    expect(resolved.listen).toEqual({ host: "127.0.0.1", port: 8080 });
    expect(resolved).toMatchObject({ path: GATEWAY_DEFAULTS.path, poolMin: 1, poolMax: 4, legacy: "session", maxBodyBytes: 4 * 1024 * 1024, maxRequests: 256, maxQueue: 256, maxSessions: 100, maxSessionsPerPrincipal: 10, maxListenStreams: 256, requestTimeoutMs: 60_000, sessionIdleMs: 600_000, maxStoredEvents: 256, poolIdleMs: 60_000 });
    expect(resolved.childLimits).toEqual({ timeoutMs: 60_000 });
    expect(resolved.childStderr).toBe("log");
    expect(checkGatewayOptions({ target, childStderr: "drop" }).childStderr).toBe("drop");
  });

  it("refuses an unknown key with a did you mean", () => {
    expect(() => checkGatewayOptions({ target, maxSesions: 3 } as never)).toThrow(/unknown option "maxSesions" \(did you mean "maxSessions"\?\)/);
    expect(() => checkGatewayOptions({ target, childLimits: { timeoutMs: 5 } } as never)).toThrow(/"childLimits.timeoutMs".*requestTimeoutMs/);
    expect(() => checkGatewayOptions({ target: { command: "node", argz: [] } } as never)).toThrow(/"target.argz" \(did you mean "args"\?\)/);
  });

  it("names the option of a bad value and what it takes", () => {
    expect(() => checkGatewayOptions({ target, poolMax: 0 })).toThrow(/"poolMax" must be a whole number from 1/);
    expect(() => checkGatewayOptions({ target, maxListenStreams: 0 })).toThrow(/"maxListenStreams" must be a whole number from 1/);
    expect(() => checkGatewayOptions({ target, poolMin: 5, poolMax: 2 })).toThrow(/"poolMin" \(5\) is more than "poolMax" \(2\)/);
    expect(() => checkGatewayOptions({ target, legacy: "sticky" as never })).toThrow(/"legacy" must be "session" or "stateless", got "sticky"/);
    expect(() => checkGatewayOptions({ target, childStderr: "loud" as never })).toThrow(
      /createGateway: "childStderr" must be "log" \(each line of a child's stderr a log line\) or "drop" \(none of it logged\), got "loud"/,
    );
    expect(() => checkGatewayOptions({ target, listen: "8080" })).toThrow(/listen "8080" is not host:port/);
    expect(() => checkGatewayOptions({ target, path: "mcp" })).toThrow(/"path" must be a URL path starting with "\/"/);
    expect(() => checkGatewayOptions({ target, allowedOrigins: ["https://a.example/path"] })).toThrow(/is not an origin/);
    expect(() => checkGatewayOptions({ target, allowedHosts: ["https://a.example"] })).toThrow(/is not a host or host:port/);
    expect(() => checkGatewayOptions({ target, childLimits: { maxInFlight: 0 } })).toThrow(/"maxInFlight" must be a whole number/);
    expect(() => checkGatewayOptions({ target: "" })).toThrow(/"target" must be the command line of a stdio server/);
    expect(() => checkGatewayOptions({ target: "server | tee log" })).toThrow(/the command runs without a shell/);
    expect(() => checkGatewayOptions({ target, tokenFile: "/t", authorize: () => undefined })).toThrow(/give one/);
    expect(() => checkGatewayOptions({ target, poolIdleMs: -1 })).toThrow(
      '"poolIdleMs" must be a whole number of ms from 0 (never shrink the pool) to 2147483647, got -1 (default 60000)',
    );
    for (const poolIdleMs of [1.5, "1m", 2 ** 31]) expect(() => checkGatewayOptions({ target, poolIdleMs: poolIdleMs as number })).toThrow(/"poolIdleMs" must be a whole number of ms/);
    expect(checkGatewayOptions({ target, poolIdleMs: 0 }).poolIdleMs).toBe(0);
  });

  it("refuses a reachable listen address without allowedHosts, and takes it with them", () => {
    expect(() => checkGatewayOptions({ target, listen: "0.0.0.0:8080" })).toThrow(/DNS rebinding/);
    expect(checkGatewayOptions({ target, listen: "0.0.0.0:8080", allowedHosts: ["MCP.example.com"] }).allowedHosts).toEqual(["mcp.example.com"]);
    expect(checkGatewayOptions({ target, listen: "[::1]:0" }).listen).toEqual({ host: "::1", port: 0 });
  });
});
