/** `host:port` as --listen and --admin-listen take it. */
import { describe, expect, it } from "vitest";
import { parseListenAddress } from "../../../src/gateway/ops/listen-address.js";

describe("parseListenAddress", () => {
  it("reads a name, an IPv4 address and a bracketed IPv6 address with a port", () => {
    expect(parseListenAddress("127.0.0.1:9090", "adminListen")).toEqual({ host: "127.0.0.1", port: 9090 });
    expect(parseListenAddress("localhost:0", "adminListen")).toEqual({ host: "localhost", port: 0 });
    expect(parseListenAddress("[::1]:8080", "listen")).toEqual({ host: "::1", port: 8080 });
    expect(parseListenAddress("0.0.0.0:65535", "listen")).toEqual({ host: "0.0.0.0", port: 65_535 });
  });

  it("refuses what is not host:port, naming the option and giving an example", () => {
    for (const text of ["9090", ":9090", "127.0.0.1", "127.0.0.1:65536", "::1:8080", "[nothost]:80", "a b:80", "http://x:80", "127.0.0.1:80x"]) {
      expect(() => parseListenAddress(text, "adminListen"), text).toThrow(
        `adminListen ${JSON.stringify(text)} is not host:port; give one such as 127.0.0.1:9090 or [::1]:9090`,
      );
    }
  });
});
