/** Human output: tables, tool results, resource contents, prompts, the progress line. */
import { describe, expect, it } from "vitest";
import { ProgressDisplay } from "../../src/cli/progress.js";
import {
  base64Bytes,
  forTerminal,
  formatBytes,
  progressLine,
  renderContentBlock,
  taskStatusLine,
  renderPrompt,
  renderResourceContents,
  renderToolResult,
  renderTools,
  table,
  toolArguments,
  type RenderContext,
} from "../../src/cli/render.js";
import type { Tool } from "../../src/index.js";

const PIPE: RenderContext = { columns: 80, terminal: false };
const TERMINAL: RenderContext = { columns: 80, terminal: true };

/** `bytes` of data as base64. */
function base64Of(bytes: number): string {
  return Buffer.alloc(bytes, 7).toString("base64");
}

describe("tables", () => {
  it("aligns every column on its widest cell", () => {
    const text = table(["NAME", "DESCRIPTION"], [["echo", "Echoes"], ["a-longer-name", "Waits"]], 80);
    expect(text).toBe("NAME           DESCRIPTION\necho           Echoes\na-longer-name  Waits\n");
  });

  it("cuts the last column to the width, with an ellipsis, and never the first", () => {
    const long = "word ".repeat(40);
    const lines = table(["NAME", "DESCRIPTION"], [["a-rather-long-tool-name", long]], 60).trimEnd().split("\n");
    expect(lines.every((line) => [...line].length <= 60)).toBe(true);
    expect(lines[1]).toMatch(/^a-rather-long-tool-name {2}word word .*…$/);
  });

  it("narrows middle columns before it starves the description", () => {
    const lines = table(["NAME", "ARGUMENTS", "DESCRIPTION"], [["tool", "x".repeat(60), "A description of some length here"]], 80).split("\n");
    expect(lines[1]).toContain("A description of some length here");
    expect(lines[1]).toMatch(/x…/);
  });

  it("cuts nothing when there is no width to fit (Infinity: a pipe or a file)", () => {
    const args = Array.from({ length: 12 }, (_, index) => `argument${index}?: string`).join(", ");
    const description = "word ".repeat(30).trimEnd();
    expect(table(["NAME", "ARGUMENTS", "DESCRIPTION"], [["tool", args, description]], Infinity)).toBe(
      `NAME  ${"ARGUMENTS".padEnd(args.length)}  DESCRIPTION\ntool  ${args}  ${description}\n`,
    );
  });

  it("makes cells one line, without control characters", () => {
    const text = table(["NAME", "DESCRIPTION"], [["t", "first line\nsecond\u001b[31m red"]], 80);
    expect(text).toBe("NAME  DESCRIPTION\nt     first line second[31m red\n");
  });

  it("lists tools with their arguments, optional ones marked", () => {
    const tool = {
      name: "search",
      description: "Finds things",
      inputSchema: { type: "object", properties: { query: { type: "string" }, limit: { type: "number" } }, required: ["query"] },
    } as Tool;
    expect(toolArguments(tool)).toBe("query: string, limit?: number");
    expect(renderTools([tool], PIPE)).toBe("NAME    ARGUMENTS                      DESCRIPTION\nsearch  query: string, limit?: number  Finds things\n");
    expect(renderTools([], PIPE)).toBe("No tools.\n");
  });
});

describe("tool results", () => {
  it("prints text as it is and summarizes images, audio, links and embedded resources", () => {
    const result = {
      content: [
        { type: "text" as const, text: "line one\n  indented" },
        { type: "image" as const, data: base64Of(12_595), mimeType: "image/png" },
        { type: "audio" as const, data: base64Of(100), mimeType: "audio/wav" },
        { type: "resource_link" as const, uri: "file:///notes.md", name: "notes", mimeType: "text/markdown" },
        { type: "resource" as const, resource: { uri: "demo://blob/1", mimeType: "application/octet-stream", blob: base64Of(2048) } },
        { type: "resource" as const, resource: { uri: "demo://text/1", text: "hello" } },
      ],
    };
    expect(renderToolResult(result, PIPE)).toBe(
      [
        "line one\n  indented",
        "[image image/png, 12.3 KiB]",
        "[audio audio/wav, 100 B]",
        "[resource link file:///notes.md, text/markdown]",
        "[resource demo://blob/1, application/octet-stream, 2.0 KiB]",
        "[resource demo://text/1, 5 B]",
        "",
      ].join("\n"),
    );
  });

  it("pretty-prints structured content, without the text block that only repeats it", () => {
    const structured = { temperature: 21, conditions: "sunny" };
    const result = {
      content: [
        { type: "text" as const, text: JSON.stringify(structured) },
        { type: "text" as const, text: "Have a nice day" },
      ],
      structuredContent: structured,
    };
    expect(renderToolResult(result, PIPE)).toBe(`Have a nice day\n${JSON.stringify(structured, null, 2)}\n`);
  });

  it("cleans escape sequences out of server text only when it goes to a terminal", () => {
    const block = { type: "text" as const, text: "ok\u001b]0;pwned\u0007 done\n" };
    expect(renderContentBlock(block, PIPE)).toBe(block.text);
    expect(renderContentBlock(block, TERMINAL)).toBe("ok]0;pwned done\n");
    expect(forTerminal("tab\tand\nnewline stay\u0000")).toBe("tab\tand\nnewline stay");
  });

  it("shows resource contents: text as it is, blobs summarized", () => {
    const text = renderResourceContents(
      { contents: [{ uri: "a://1", text: "# Title\n" }, { uri: "a://2", mimeType: "image/png", blob: base64Of(10) }] },
      PIPE,
    );
    expect(text).toBe("# Title\n[blob a://2, image/png, 10 B]\n");
    expect(renderResourceContents({ contents: [] }, PIPE)).toBe("(no contents)\n");
  });

  it("shows a prompt's messages under their roles", () => {
    const text = renderPrompt(
      { description: "Weather", messages: [{ role: "user", content: { type: "text", text: "What's the weather in Paris?" } }] },
      PIPE,
    );
    expect(text).toBe("# Weather\n[user]\nWhat's the weather in Paris?\n");
  });
});

describe("sizes", () => {
  it("counts base64 bytes without decoding and formats them in binary units", () => {
    for (const bytes of [0, 1, 2, 3, 4, 1000, 4097]) expect(base64Bytes(base64Of(bytes))).toBe(bytes);
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(12_595)).toBe("12.3 KiB");
    expect(formatBytes(5 * 1024 * 1024)).toBe("5.0 MiB");
  });
});

describe("the progress line", () => {
  it("draws a bar when the total is known", () => {
    expect(progressLine({ progress: 4, total: 10 }, 80)).toBe("[########------------] 4/10 40%");
    expect(progressLine({ progress: 1, total: 2, message: "half\nway" }, 80)).toBe("[##########----------] 1/2 50% half way");
  });

  it("counts when there is no total", () => {
    expect(progressLine({ progress: 3 }, 80)).toBe("progress 3");
    expect(progressLine({ progress: 0.25, message: "warming up" }, 80)).toBe("progress 0.25 warming up");
  });

  it("fits one column short of the terminal's width", () => {
    const line = progressLine({ progress: 1, total: 3, message: "x".repeat(200) }, 40);
    expect([...line]).toHaveLength(39);
    expect(line.endsWith("…")).toBe(true);
  });

  it("is drawn in place on a terminal and erased before the output", () => {
    const written: string[] = [];
    const display = ProgressDisplay.on({ isTTY: true, columns: 50, write: (text: string) => written.push(text) })!;
    display.update({ progress: 1, total: 2 });
    display.clear();
    display.clear();
    expect(written).toEqual(["\r\u001b[2K[##########----------] 1/2 50%", "\r\u001b[2K"]);
  });

  it("shows a task's status and message, one line, cut to fit", () => {
    const state = { taskId: "t", status: "input_required" as const, createdAt: "", lastUpdatedAt: "", ttlMs: null };
    expect(taskStatusLine(state, 80)).toBe("task input required");
    expect(taskStatusLine({ ...state, status: "working", statusMessage: "Gathering\nsources\u001b[31m..." }, 80)).toBe("task working: Gathering sources[31m...");
    expect([...taskStatusLine({ ...state, statusMessage: "x".repeat(200) }, 30)]).toHaveLength(29);
    const written: string[] = [];
    const display = ProgressDisplay.on({ isTTY: true, columns: 50, write: (text: string) => written.push(text) })!;
    display.updateTask({ ...state, status: "working", statusMessage: "Analyzing content..." });
    display.clear();
    expect(written).toEqual(["\r\u001b[2Ktask working: Analyzing content...", "\r\u001b[2K"]);
  });

  it("is never drawn when the stream is not a terminal", () => {
    expect(ProgressDisplay.on({ isTTY: false, write: () => true })).toBeUndefined();
    expect(ProgressDisplay.on({ write: () => true })).toBeUndefined();
  });
});
