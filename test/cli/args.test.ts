/** The command line as `mcpwire` reads it: commands, operands, options, and the call arguments. */
import { describe, expect, it } from "vitest";
import { parseCommandLine, parseDuration, parseEnvAllow, parseHeaders, parseProtocol } from "../../src/cli/args.js";
import { parsePromptArguments, parseToolArguments } from "../../src/cli/call-arguments.js";
import { UsageError } from "../../src/cli/usage.js";

function command(argv: string[]) {
  const invocation = parseCommandLine(argv);
  if (invocation.kind !== "command") throw new Error(`expected a command, got ${invocation.kind}`);
  return invocation;
}

describe("parseCommandLine", () => {
  it("reads the command, the target and the operands, with options anywhere", () => {
    const invocation = command(["call", "--json", "http://127.0.0.1:3001/mcp", "echo", "message=hi", "--timeout", "30s", "-v"]);
    expect(invocation.command).toBe("call");
    expect(invocation.target).toBe("http://127.0.0.1:3001/mcp");
    expect(invocation.operands).toEqual(["echo", "message=hi"]);
    expect(invocation.options).toMatchObject({ json: true, verbose: true, timeoutMs: 30_000 });
  });

  it("keeps a quoted command line as one target", () => {
    expect(command(["tools", "npx -y @modelcontextprotocol/server-everything"]).target).toBe("npx -y @modelcontextprotocol/server-everything");
  });

  it("takes everything after -- as operands, even what looks like an option", () => {
    expect(command(["call", "srv", "echo", "--", "--text=-x"]).operands).toEqual(["echo", "--text=-x"]);
  });

  it("collects repeated --header and --env-allow", () => {
    const { options } = command(["ping", "http://h/mcp", "--header", "Authorization: Bearer a:b", "--header", "X-Team: blue"]);
    expect(options.headers).toEqual({ Authorization: "Bearer a:b", "X-Team": "blue" });
    expect(command(["ping", "srv", "--env-allow", "HOME,LANG", "--env-allow", "TZ"]).options.envAllow).toEqual(["HOME", "LANG", "TZ"]);
  });

  it("checks output unless --no-validate-output is given", () => {
    expect(command(["call", "srv", "echo"]).options.validateOutput).toBe(true);
    expect(command(["call", "srv", "echo", "--no-validate-output"]).options.validateOutput).toBe(false);
  });

  it("answers --help and --version before anything else", () => {
    expect(parseCommandLine(["--help"])).toEqual({ kind: "help" });
    expect(parseCommandLine(["tools", "-h"])).toEqual({ kind: "help" });
    expect(parseCommandLine(["-V"])).toEqual({ kind: "version" });
  });

  it.each([
    [[], /no command/],
    [["frobnicate", "srv"], /unknown command "frobnicate"; the commands are tools, call/],
    [["tools"], /tools needs a target/],
    [["call", "srv"], /call needs <tool> after the target/],
    [["read", "srv"], /read needs <uri>/],
    [["tools", "node", "server.js"], /quote it as one argument/],
    [["tools", "srv", "--bogus"], /^unknown option --bogus; an argument that starts with - goes after -- at the end of the command line$/],
    [["tools", "srv", "--timeot", "5s"], /^unknown option --timeot \(did you mean "--timeout"\?\)$/],
    [["tools", "srv", "-x"], /^unknown option -x; an argument/],
    [["tools", "srv", "--timeout"], /--timeout/],
    [["tools", "srv", "--no-validate-output"], /--no-validate-output applies to call .*; tools reads no tool result/],
    [["prompt", "srv", "greet", "--no-validate-output"], /--no-validate-output applies to call/],
  ])("refuses %j as a usage error", (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});

describe("option values", () => {
  it("reads durations in ms, s and m", () => {
    expect(parseDuration("5000")).toBe(5000);
    expect(parseDuration("250ms")).toBe(250);
    expect(parseDuration("1.5s")).toBe(1500);
    expect(parseDuration("2m")).toBe(120_000);
  });

  it.each(["0", "-1", "soon", "5h", "", "99999999999"])("refuses the duration %j", (text) => {
    expect(() => parseDuration(text)).toThrow(/--timeout .* is not a duration/);
  });

  it("refuses a header without a name or a colon", () => {
    expect(() => parseHeaders(["Authorization Bearer x"])).toThrow(/is not "Name: value"/);
    expect(() => parseHeaders([": x"])).toThrow(UsageError);
    expect(() => parseHeaders(["Bad Name: x"])).toThrow(UsageError);
  });

  it.each(["Authorization:", "Authorization:   ", "X-Team :"])("refuses the header %j, which has no value, saying how to write one", (text) => {
    const name = text.slice(0, text.indexOf(":")).trim();
    expect(() => parseHeaders([text])).toThrow(UsageError);
    expect(() => parseHeaders([text])).toThrow(`the header ${name} has no value; write it as --header "${name}: value"`);
  });

  it("accepts the names Windows gives its variables, such as ProgramFiles(x86)", () => {
    expect(parseEnvAllow(["ProgramFiles(x86),CommonProgramFiles(x86)", "PATH"])).toEqual(["ProgramFiles(x86)", "CommonProgramFiles(x86)", "PATH"]);
  });

  it("refuses a variable name that is not one: with \"=\" or NUL, saying what a name is", () => {
    expect(() => parseEnvAllow(["HOME,A=B"])).toThrow(/"A=B" is not a variable name \(a name is non-empty, without "=" or NUL\)/);
    expect(() => parseEnvAllow(["A\0B"])).toThrow(UsageError);
  });

  it("accepts the protocol choices and the known revisions only", () => {
    expect(parseProtocol("legacy")).toBe("legacy");
    expect(parseProtocol("2025-06-18")).toBe("2025-06-18");
    expect(() => parseProtocol("2019-01-01")).toThrow(/is not one of auto, legacy, modern, 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05$/);
  });
});

describe("call arguments", () => {
  it("takes values that parse as JSON as such, and anything else as the string written", () => {
    expect(
      parseToolArguments(["n=42", "f=-1.5", "yes=true", "no=false", "none=null", "list=[1,2]", "obj={\"a\":1}", "word=hello", "spaced=a b", "empty="]),
    ).toEqual({ n: 42, f: -1.5, yes: true, no: false, none: null, list: [1, 2], obj: { a: 1 }, word: "hello", spaced: "a b", empty: "" });
  });

  it("keeps a quoted value a string, and splits at the first =", () => {
    expect(parseToolArguments(['zip="02134"', "expr=a=b"])).toEqual({ zip: "02134", expr: "a=b" });
  });

  it("keeps what is not valid JSON as written", () => {
    expect(parseToolArguments(["a={not json", "b=1e999", "c=12abc"])).toEqual({ a: "{not json", b: "1e999", c: "12abc" });
  });

  it("takes one JSON object", () => {
    expect(parseToolArguments(['{"message": "hi", "n": 2}'])).toEqual({ message: "hi", n: 2 });
    expect(parseToolArguments([])).toEqual({});
  });

  it.each([
    [["[1,2]"], /must be a JSON object.*got an array/],
    [["{bad json"], /not valid JSON/],
    [['{"a":1}', "b=2"], /one JSON object or as key=value pairs, not both/],
    [["hello"], /"hello" is not key=value; give key=value pairs or one JSON object/],
    [["=x"], /is not key=value/],
    [["a=1", "a=2"], /"a" is given twice/],
  ])("refuses %j with a clear message", (operands, message) => {
    expect(() => parseToolArguments(operands)).toThrow(UsageError);
    expect(() => parseToolArguments(operands)).toThrow(message);
  });

  it("keeps __proto__ an ordinary key", () => {
    const args = parseToolArguments(["__proto__=1"]);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.keys(args)).toEqual(["__proto__"]);
  });

  it("takes prompt arguments as strings, always", () => {
    expect(parsePromptArguments(["city=Paris", "n=3"])).toEqual({ city: "Paris", n: "3" });
    expect(() => parsePromptArguments(["Paris"])).toThrow(/prompt arguments are key=value pairs/);
  });
});

describe("the proxy and TLS flags", () => {
  it("--proxy, --ca (repeatable), --cert and --key, as the transports take them (files read when connecting)", () => {
    const { options } = command(["tools", "https://h/mcp", "--proxy", "http://p:3128", "--ca", "a.pem", "--ca", "b.pem", "--cert", "c.pem", "--key", "k.pem"]);
    expect(options.network).toEqual({ proxy: "http://p:3128", ca: [{ file: "a.pem" }, { file: "b.pem" }], cert: { file: "c.pem" }, key: { file: "k.pem" } });
  });

  it("--no-proxy is proxy: false; nothing given is nothing set", () => {
    expect(command(["tools", "https://h/mcp", "--no-proxy"]).options.network).toEqual({ proxy: false });
    expect(command(["tools", "https://h/mcp"]).options.network).toEqual({});
  });

  it.each([
    [["--proxy", "http://p:1", "--no-proxy"], /--proxy and --no-proxy say opposite things/],
    [["--proxy", "socks5://p:1"], /--proxy takes a URL, http:\/\/host:port/],
    [["--cert", "c.pem"], /--cert needs its private key: give --key too/],
    [["--key", "k.pem"], /--key needs the client certificate/],
  ])("refuses %j as a usage error", (flags, message) => {
    expect(() => parseCommandLine(["tools", "https://h/mcp", ...flags])).toThrow(UsageError);
    expect(() => parseCommandLine(["tools", "https://h/mcp", ...flags])).toThrow(message);
  });

  it("never repeats a refused --proxy value, which may carry a password", () => {
    expect(() => parseCommandLine(["tools", "https://h/mcp", "--proxy", "ftp://ada:hunter2@p"])).toThrow(/^(?!.*hunter2)/);
  });
});
