/**
 * Which proxy a target goes through: the `proxy` option over the environment, HTTPS_PROXY and
 * HTTP_PROXY by scheme (lower case first), and NO_PROXY with undici's EnvHttpProxyAgent rules.
 * The environment is given as an object: nothing here touches process.env.
 */
import { describe, expect, it } from "vitest";
import { bypassesProxy, parseNoProxy, proxyRoute, proxyRules } from "../../src/transport/net/proxy-rules.js";

const via = (target: string, env: Record<string, string>, option?: string | false) =>
  proxyRules(option, "test:", env).routeFor(new URL(target))?.shown;

describe("the environment", () => {
  it("sends https: and wss: targets to HTTPS_PROXY, http: and ws: targets to HTTP_PROXY", () => {
    const env = { HTTPS_PROXY: "http://secure.proxy:3128", HTTP_PROXY: "http://plain.proxy:8080" };
    expect(via("https://api.example/mcp", env)).toBe("http://secure.proxy:3128");
    expect(via("wss://api.example/mcp", env)).toBe("http://secure.proxy:3128");
    expect(via("http://api.example/mcp", env)).toBe("http://plain.proxy:8080");
    expect(via("ws://api.example/mcp", env)).toBe("http://plain.proxy:8080");
  });

  it("reads the lower-case name first when both are set, as curl does", () => {
    const env = { https_proxy: "http://lower:1", HTTPS_PROXY: "http://upper:2", http_proxy: "http://lower:3", HTTP_PROXY: "http://upper:4" };
    expect(via("https://a.example", env)).toBe("http://lower:1");
    expect(via("http://a.example", env)).toBe("http://lower:3");
  });

  it("does not send an https target to HTTP_PROXY when HTTPS_PROXY is unset (curl's rule)", () => {
    expect(via("https://a.example", { HTTP_PROXY: "http://plain:1" })).toBeUndefined();
  });

  it("connects directly when no variable is set, or one is set empty", () => {
    expect(via("https://a.example", {})).toBeUndefined();
    expect(via("https://a.example", { HTTPS_PROXY: "" })).toBeUndefined();
  });

  it("refuses a proxy variable that is not an http: or https: URL, naming the variable", () => {
    expect(() => proxyRules(undefined, "test:", { HTTPS_PROXY: "socks5://p:1080" })).toThrow(/HTTPS_PROXY must be an http: or https: URL/);
    expect(() => proxyRules(undefined, "test:", { http_proxy: "not a url" })).toThrow(/environment variable http_proxy is not a URL/);
  });
});

describe("the proxy option", () => {
  it("overrides the environment with a URL", () => {
    expect(via("https://a.example", { HTTPS_PROXY: "http://env:1" }, "http://option:2")).toBe("http://option:2");
    expect(via("http://a.example", {}, "http://option:2")).toBe("http://option:2");
  });

  it("false sends nothing through a proxy, whatever the environment says", () => {
    expect(via("https://a.example", { HTTPS_PROXY: "http://env:1" }, false)).toBeUndefined();
  });

  it("still lets NO_PROXY reach listed hosts directly, as curl does with --proxy", () => {
    expect(via("https://internal.example", { NO_PROXY: "internal.example" }, "http://option:2")).toBeUndefined();
  });

  it("is refused when it is not an http: or https: URL, without repeating it", () => {
    expect(() => proxyRules("ftp://user:pw@p:21", "StreamableHttpTransport:", {})).toThrow(/StreamableHttpTransport: "proxy" must be an http: or https: URL/);
    let message = "";
    try {
      proxyRules("http//user:hunter2@", "t:", {});
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/is not a URL/);
    expect(message).not.toContain("hunter2");
  });
});

describe("a proxy URL's credentials", () => {
  it("become Proxy-Authorization: Basic, and are not in what is shown", () => {
    const route = proxyRoute("http://ada%40corp:p%3Ass@proxy.example:3128/", "t");
    expect(route.authorization).toBe(`Basic ${Buffer.from("ada@corp:p:ss").toString("base64")}`);
    expect(route.shown).toBe("http://proxy.example:3128");
    expect(route.url.href).toBe("http://proxy.example:3128/");
  });

  it("with a broken percent escape are refused with a TypeError naming where, without repeating them", () => {
    for (const value of ["http://ada%zz:hunter2@proxy.example:3128", "http://ada:hunter2%@proxy.example:3128"]) {
      let error: unknown;
      try {
        proxyRoute(value, 'test: "proxy"');
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/^test: "proxy" has a user name or password that is not valid percent-encoding/);
      expect((error as Error).message).not.toContain("hunter2");
    }
    expect(() => proxyRules(undefined, "test:", { HTTPS_PROXY: "http://a%zz:b@p:1" })).toThrow(/environment variable HTTPS_PROXY has a user name or password/);
  });

  it("a user name alone is sent with an empty password", () => {
    expect(proxyRoute("http://token@proxy.example", "t").authorization).toBe(`Basic ${Buffer.from("token:").toString("base64")}`);
  });

  it("none, no header", () => {
    expect(proxyRoute("http://proxy.example", "t").authorization).toBeUndefined();
  });
});

describe("NO_PROXY", () => {
  const bypass = (target: string, noProxy: string) => bypassesProxy(new URL(target), parseNoProxy(noProxy));

  it("matches a host and its subdomains, with or without a leading dot or *.", () => {
    for (const entry of ["example.com", ".example.com", "*.example.com"]) {
      expect(bypass("https://example.com/", entry)).toBe(true);
      expect(bypass("https://api.example.com/", entry)).toBe(true);
      expect(bypass("https://notexample.com/", entry)).toBe(false);
    }
  });

  it("is split at commas and white space, and ignores case", () => {
    expect(bypass("https://B.example/", "a.example, b.example c.example")).toBe(true);
    expect(bypass("https://c.example/", "a.example,\tb.example c.example")).toBe(true);
    expect(bypass("https://d.example/", "a.example, b.example c.example")).toBe(false);
  });

  it("* alone bypasses every host", () => {
    expect(bypass("https://anything.example/", "*")).toBe(true);
  });

  it("host:port matches that port only, the default port when the URL has none", () => {
    expect(bypass("http://a.example:8080/", "a.example:8080")).toBe(true);
    expect(bypass("http://a.example:9090/", "a.example:8080")).toBe(false);
    expect(bypass("https://a.example/", "a.example:443")).toBe(true);
    expect(bypass("wss://a.example/", "a.example:443")).toBe(true);
    expect(bypass("http://a.example/", "a.example:443")).toBe(false);
  });

  it("matches IP literals as written, IPv6 with or without brackets", () => {
    expect(bypass("http://10.0.0.7:80/", "10.0.0.7")).toBe(true);
    expect(bypass("http://10.0.0.8/", "10.0.0.7")).toBe(false);
    expect(bypass("http://[::1]:3000/", "::1")).toBe(true);
    expect(bypass("http://[::1]:3000/", "[::1]")).toBe(true);
    expect(bypass("http://[::1]:3000/", "[::1]:3000")).toBe(true);
    expect(bypass("http://[::1]:3001/", "[::1]:3000")).toBe(false);
  });

  it("does not bypass loopback unless it is listed, as curl and undici do", () => {
    expect(via("http://127.0.0.1:3000/mcp", { HTTP_PROXY: "http://p:1" })).toBe("http://p:1");
    expect(via("http://localhost:3000/mcp", { HTTP_PROXY: "http://p:1" })).toBe("http://p:1");
    expect(via("http://127.0.0.1:3000/mcp", { HTTP_PROXY: "http://p:1", NO_PROXY: "127.0.0.1" })).toBeUndefined();
  });

  it("reads no_proxy before NO_PROXY", () => {
    expect(via("http://a.example/", { HTTP_PROXY: "http://p:1", no_proxy: "a.example", NO_PROXY: "b.example" })).toBeUndefined();
    expect(via("http://b.example/", { HTTP_PROXY: "http://p:1", no_proxy: "a.example", NO_PROXY: "b.example" })).toBe("http://p:1");
  });
});
