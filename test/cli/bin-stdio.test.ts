/**
 * The real `mcpwire` bin against real servers over stdio (the contract server and the reference
 * server published on npm), and its usage errors.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { CONTRACT_SERVER, EVERYTHING_SERVER, FIXTURES, NEVER_ANSWERS_SERVER, commandLine, runBin } from "./helpers.js";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

describe("mcpwire over stdio: commands", () => {
  it("tools: lists the tools in an aligned table", async () => {
    const { code, stdout, stderr } = await runBin(["tools", CONTRACT_SERVER]);
    expect(stderr).toBe("");
    expect(code).toBe(ExitCode.OK);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME +ARGUMENTS +DESCRIPTION$/);
    expect(lines).toContainEqual(expect.stringMatching(/^echo +text: string$/));
    expect(lines).toContainEqual(expect.stringMatching(/^progress +steps: number, ms: number$/));
    // Aligned: every row's second column starts where the header's does.
    const column = lines[0]!.indexOf("ARGUMENTS");
    for (const line of lines.slice(1)) expect(line.length <= column || line[column - 1] === " ").toBe(true);
  });

  it("tools --json: prints JSON that parses", async () => {
    const { code, stdout } = await runBin(["tools", CONTRACT_SERVER, "--json"]);
    expect(code).toBe(ExitCode.OK);
    const parsed = JSON.parse(stdout) as { tools: { name: string; inputSchema: unknown }[] };
    expect(parsed.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "sleep", "progress"]));
  });

  it("call: takes key=value pairs and prints the text as it is", async () => {
    const { code, stdout, stderr } = await runBin(["call", CONTRACT_SERVER, "echo", "text=hello  world"]);
    expect({ code, stdout, stderr }).toEqual({ code: ExitCode.OK, stdout: "hello  world\n", stderr: "" });
  });

  it("call --json: takes one JSON object and prints the whole result", async () => {
    const { code, stdout } = await runBin(["call", CONTRACT_SERVER, "echo", '{"text": "from json"}', "--json"]);
    expect(code).toBe(ExitCode.OK);
    expect(JSON.parse(stdout)).toMatchObject({ content: [{ type: "text", text: "from json" }] });
  });

  it("call: a result with isError is printed, and the exit code says the tool failed", async () => {
    const { code, stdout, stderr } = await runBin(["call", EVERYTHING_SERVER, "get-sum", "a=1", "b=not-a-number"]);
    expect(code).toBe(ExitCode.TOOL_ERROR);
    expect(stdout).toMatch(/get-sum/);
    expect(stderr).toBe('mcpwire: tool "get-sum" reported an error (isError: true)\n');
  });

  it("call: images are summarized and structured content is pretty-printed", async () => {
    const image = await runBin(["call", EVERYTHING_SERVER, "get-tiny-image"]);
    expect(image.code).toBe(ExitCode.OK);
    expect(image.stdout).toMatch(/^\[image image\/png, \d+(\.\d)? KiB\]$/m);
    const structured = await runBin(["call", EVERYTHING_SERVER, "get-structured-content", "location=Chicago"]);
    expect(structured.code).toBe(ExitCode.OK);
    expect(JSON.parse(structured.stdout)).toHaveProperty("temperature");
    expect(structured.stdout).toMatch(/^\{\n {2}"/);
  });

  it("call: progress is not drawn when stderr is not a terminal", async () => {
    const { code, stdout, stderr } = await runBin(["call", CONTRACT_SERVER, "progress", "steps=3", "ms=20"]);
    expect(code).toBe(ExitCode.OK);
    expect(stdout).toBe("done 3\n");
    expect(stderr).toBe("");
  });

  it("resources, read, prompts, prompt: against the reference server", async () => {
    const resources = await runBin(["resources", EVERYTHING_SERVER]);
    expect(resources.code).toBe(ExitCode.OK);
    expect(resources.stdout).toMatch(/^URI +NAME +MIME TYPE +DESCRIPTION$/m);
    expect(resources.stdout).toMatch(/^URI TEMPLATE +NAME/m);
    const uri = /^(demo:\/\/\S+)/m.exec(resources.stdout.split("\n").slice(1).join("\n"))![1]!;

    const read = await runBin(["read", EVERYTHING_SERVER, uri, "--json"]);
    expect(read.code).toBe(ExitCode.OK);
    expect((JSON.parse(read.stdout) as { contents: { uri: string }[] }).contents[0]!.uri).toBe(uri);

    const prompts = await runBin(["prompts", EVERYTHING_SERVER]);
    expect(prompts.stdout).toMatch(/^args-prompt +city, state\? /m);

    const prompt = await runBin(["prompt", EVERYTHING_SERVER, "args-prompt", "city=Paris"]);
    expect(prompt.code).toBe(ExitCode.OK);
    expect(prompt.stdout).toMatch(/^\[user\]\n.*Paris/m);
  });

  it("info: server, negotiated revision, era, transport", async () => {
    const human = await runBin(["info", CONTRACT_SERVER]);
    expect(human.code).toBe(ExitCode.OK);
    expect(human.stdout).toMatch(/^Server +contract-server 1\.0\.0$/m);
    expect(human.stdout).toMatch(/^Transport +stdio$/m);
    expect(human.stdout).toMatch(/^Capabilities +.*tools/m);
    const json = JSON.parse((await runBin(["info", CONTRACT_SERVER, "--json", "--protocol", "2025-06-18"])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ serverInfo: { name: "contract-server" }, protocolVersion: "2025-06-18", era: "legacy", transport: "stdio" });
  });

  it("ping: says the server answered", async () => {
    const { code, stdout } = await runBin(["ping", NEVER_ANSWERS_SERVER]);
    expect(code).toBe(ExitCode.OK);
    expect(stdout).toMatch(/^pong \(\d+ ms\)\n$/);
  });

  it("--env-allow: the child inherits the named variable, and only then", async () => {
    const env = { CLI_TEST_VISIBLE: "shown-when-allowed" };
    const without = await runBin(["call", EVERYTHING_SERVER, "get-env"], { env });
    expect(without.code).toBe(ExitCode.OK);
    expect(without.stdout).not.toContain("shown-when-allowed");
    const allowed = await runBin(["call", EVERYTHING_SERVER, "get-env", "--env-allow", "CLI_TEST_VISIBLE"], { env });
    expect(allowed.code).toBe(ExitCode.OK);
    expect(allowed.stdout).toContain("shown-when-allowed");
  });

  it("--env-allow: takes a Windows name such as ProgramFiles(x86), and the child inherits it", async () => {
    const env = { "ProgramFiles(x86)": "pf86-shown-when-allowed" };
    const allowed = await runBin(["call", EVERYTHING_SERVER, "get-env", "--env-allow", "ProgramFiles(x86)"], { env });
    expect(allowed.stderr).toBe("");
    expect(allowed.code).toBe(ExitCode.OK);
    expect(allowed.stdout).toContain("pf86-shown-when-allowed");
  });
});

describe("mcpwire call: checked structured output", () => {
  // Its tool `mismatching` declares an outputSchema of string items and returns ["a", 7].
  const OUTPUT_SCHEMA_SERVER = commandLine(process.execPath, "--import", "tsx", `${FIXTURES}output-schema-server.ts`, "stdio");

  it("fails with the protocol code when structuredContent does not match the tool's outputSchema, naming the flag", async () => {
    const { code, stdout, stderr } = await runBin(["call", OUTPUT_SCHEMA_SERVER, "mismatching"]);
    expect(code).toBe(ExitCode.PROTOCOL);
    expect(stdout).toBe("");
    expect(stderr).toContain(`callTool "mismatching" returned structuredContent that does not match the tool's outputSchema at /items/1 (keyword type)`);
    expect(stderr).toContain("; --no-validate-output prints the result unchecked");
    expect(stderr.split("\n")).toHaveLength(2);
  });

  it("--no-validate-output prints the result as the server sent it", async () => {
    const human = await runBin(["call", OUTPUT_SCHEMA_SERVER, "mismatching", "--no-validate-output"]);
    expect(human).toMatchObject({ code: ExitCode.OK, stderr: "" });
    expect(human.stdout).toContain('"items": [\n    "a",\n    7\n  ]');
    const json = await runBin(["call", OUTPUT_SCHEMA_SERVER, "mismatching", "--json", "--no-validate-output"]);
    expect(json.code).toBe(ExitCode.OK);
    expect(JSON.parse(json.stdout)).toMatchObject({ structuredContent: { count: 2, items: ["a", 7] } });
  });

  it("checks a result that matches, and passes it", async () => {
    const { code, stdout, stderr } = await runBin(["call", OUTPUT_SCHEMA_SERVER, "matching", "--json"]);
    expect({ code, stderr }).toEqual({ code: ExitCode.OK, stderr: "" });
    expect(JSON.parse(stdout)).toMatchObject({ structuredContent: { count: 2, items: ["a", "b"] } });
  });
});

describe("mcpwire: usage", () => {
  it.each([
    [[]],
    [["tools"]],
    [["call", CONTRACT_SERVER]],
    [["call", CONTRACT_SERVER, "echo", "not-a-pair"]],
    [["tools", CONTRACT_SERVER, "--timeout", "soon"]],
    [["tools", CONTRACT_SERVER, "--header", "X-Key: 1"]],
    [["launch", CONTRACT_SERVER]],
  ])("refuses %j with the usage code and one line, before starting anything", async (argv) => {
    const { code, stdout, stderr } = await runBin(argv);
    expect(code).toBe(ExitCode.USAGE);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^mcpwire: .*\(see mcpwire --help\)\n$/);
  });

  it("--help prints the usage and --version the version", async () => {
    const help = await runBin(["--help"]);
    expect(help.code).toBe(ExitCode.OK);
    expect(help.stdout).toMatch(/^Usage: mcpwire <command> <target> \[arguments\] \[options\]$/m);
    expect(help.stdout).toMatch(/Exit codes:/);
    expect(help.stdout).toMatch(/^ {2}--no-validate-output {2,}print a tool's structured content/m);
    expect(await runBin(["--version"])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  });
});
