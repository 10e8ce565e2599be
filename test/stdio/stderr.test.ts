/** stderr: always drained, its tail kept and attached to failures, optionally forwarded, never an error. */
import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { DEFAULT_STDERR_TAIL_BYTES } from "../../src/index.js";
import { failure, firstText, fixture, useCleanup } from "./helpers.js";

const cleanup = useCleanup();

describe("stdio stderr", () => {
  it("is drained continuously: a child that logs megabytes before and during a call never blocks", async () => {
    // A pipe holds 64 KiB; 8 MiB written before the server even reads its stdin would wedge it
    // for good if stderr were not read.
    const transport = fixture("stdio-stderr-flood.mjs", ["--at-start", "8"]);
    const client = await cleanup.connect(transport);
    expect(firstText(await client.callTool("flood", { mb: 8 }))).toBe("flooded 8");
    const tail = transport.stderrTail;
    expect(tail.endsWith("last line before the answer")).toBe(true);
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(DEFAULT_STDERR_TAIL_BYTES);
  });

  it("is never an error by itself", async () => {
    const client = await cleanup.connect(fixture("stdio-stderr-flood.mjs"));
    expect(firstText(await client.callTool("log-then-answer"))).toBe("answered");
    expect(client.session.isOpen).toBe(true);
  });

  it("keeps a tail bounded by the options", async () => {
    const transport = fixture("stdio-stderr-flood.mjs", [], { stderrTailLines: 2, stderrTailBytes: 4_096 });
    const client = await cleanup.connect(transport);
    await client.callTool("flood", { mb: 1 });
    const lines = transport.stderrTail.split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe("last line before the answer");
  });

  it("attaches the tail to the failures of the connection", async () => {
    const client = await cleanup.connect(fixture("stdio-exits-mid-call.mjs"));
    const error = await failure(client.callTool("exit", { code: 2 }));
    expect(error.stderrTail).toBe("fatal: the server gave up");
    expect((await client.ended).error?.stderrTail).toBe("fatal: the server gave up");
  });

  it("is forwarded to a stream given as stderr", async () => {
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on("data", (chunk: Buffer) => chunks.push(chunk));
    const client = await cleanup.connect(fixture("stdio-stderr-flood.mjs", [], { stderr: sink }));
    await client.callTool("log-then-answer");
    await client.close();
    expect(Buffer.concat(chunks).toString()).toContain("warning: this is only a log line\n");
  });

  it("is forwarded to a callback given as stderr, as text", async () => {
    let text = "";
    const client = await cleanup.connect(fixture("stdio-stderr-flood.mjs", [], { stderr: (chunk) => (text += chunk) }));
    await client.callTool("log-then-answer");
    await client.close();
    expect(text).toContain("warning: this is only a log line\n");
  });

  it("a forward stream that never drains, or a callback that throws, does not block the child", async () => {
    const stuck = new Writable({ highWaterMark: 1024, write: () => {} }); // never calls back
    const client = await cleanup.connect(fixture("stdio-stderr-flood.mjs", [], { stderr: stuck }));
    expect(firstText(await client.callTool("flood", { mb: 4 }))).toBe("flooded 4");
    expect(stuck.writableLength).toBeLessThanOrEqual(2 * 1024 * 1024);

    const throwing = await cleanup.connect(
      fixture("stdio-stderr-flood.mjs", [], {
        stderr: () => {
          throw new Error("the log sink is broken");
        },
      }),
    );
    expect(firstText(await throwing.callTool("flood", { mb: 1 }))).toBe("flooded 1");
  });
});
