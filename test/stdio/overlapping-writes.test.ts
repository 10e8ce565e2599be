/**
 * Calls that overlap: their lines are written together at the end of a turn (util/hot-path.ts
 * `TurnBatch`), through a real pipe to a real child, with requests larger than the pipe's
 * high-water mark so that the batch is cut short and backpressure waits for 'drain'.
 */
import { describe, expect, it } from "vitest";
import { firstText, fixture, useCleanup } from "./helpers.js";

const cleanup = useCleanup();

describe("calls in flight over stdio", () => {
  it("each of 64 calls gets its own answer, and the server reads them in the order they were sent", async () => {
    const client = await cleanup.connect(fixture("stdio-read-order.mjs"));
    // 40 000 characters each: above stdin's 16 KiB high-water mark, 2.5 MB in all.
    const texts = Array.from({ length: 64 }, (_, i) => `${i}:`.padEnd(40_000, String.fromCharCode(97 + (i % 26))));
    const results = await Promise.all(texts.map((value, tag) => client.callTool("echo", { text: value, tag })));
    expect(results.map(firstText)).toEqual(texts);
    // Sent in a burst from promise reactions, as callers whose requests a chunk of replies settled.
    const small = await Promise.all(
      Array.from({ length: 64 }, (_, i) => Promise.resolve().then(() => client.callTool("echo", { text: `small ${i}`, tag: 64 + i }))),
    );
    expect(small.map(firstText)).toEqual(Array.from({ length: 64 }, (_, i) => `small ${i}`));
    const order = JSON.parse(firstText(await client.callTool("order")));
    expect(order).toEqual(Array.from({ length: 128 }, (_, i) => i));
  });
});
