import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { McpTransportError } from "../../src/errors.js";
import type { HttpResponse } from "../../src/transport/http/http-client.js";
import { readSse, type SseEvent, type SseProgress } from "../../src/transport/http/sse-reader.js";

/** A response body that hands out the chunks of `source`, the way `HttpResponse.read` does. */
function body(source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Pick<HttpResponse, "read"> {
  return {
    async read(onChunk) {
      for await (const chunk of source) onChunk(chunk);
    },
  };
}

function chunks(parts: Uint8Array[]): Pick<HttpResponse, "read"> {
  return body(parts);
}

async function read(parts: Uint8Array[], maxEventBytes = 1 << 20): Promise<{ events: SseEvent[]; progress: SseProgress; retries: number[] }> {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const progress: SseProgress = {};
  await readSse(
    chunks(parts),
    { maxEventBytes, transportName: "test", onEvent: (event) => events.push(event), onRetry: (ms) => retries.push(ms) },
    progress,
  );
  return { events, progress, retries };
}

const stream =
  "id: 1\nretry: 750\ndata: \n\n" +
  ": a comment\n" +
  'event: message\nid: 2\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"text":"héllo ✓"}}\n\n' +
  "data: line one\r\ndata: line two\r\n\r\n" +
  "event: endpoint\ndata: /messages?x=1\n\n";

describe("readSse", () => {
  it("reads every event, its id and type, and the retry field", async () => {
    const { events, progress, retries } = await read([Buffer.from(stream)]);
    expect(events).toEqual([
      { id: "1", data: "" },
      { id: "2", event: "message", data: '{"jsonrpc":"2.0","method":"notifications/message","params":{"text":"héllo ✓"}}' },
      { data: "line one\nline two" },
      { event: "endpoint", data: "/messages?x=1" },
    ]);
    expect(progress).toEqual({ lastEventId: "2", retryMs: 750 });
    expect(retries).toEqual([750]);
  });

  it("gives the same events however the bytes are split (even inside a UTF-8 character)", async () => {
    const bytes = Buffer.from(stream);
    const whole = (await read([bytes])).events;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), async (cuts) => {
        const sorted = [...cuts].sort((a, b) => a - b);
        const parts: Uint8Array[] = [];
        let start = 0;
        for (const cut of [...sorted, bytes.length]) {
          parts.push(bytes.subarray(start, cut));
          start = cut;
        }
        expect((await read(parts)).events).toEqual(whole);
      }),
    );
  });

  it("keeps the id of an event without data, not that of an event cut off, however the bytes are split (SSE: last event ID buffer)", async () => {
    // An id alone primes a stream (SEP-1699); an empty id ("id:", or "id" without a colon) leaves none to
    // resume from, so no Last-Event-ID is sent; "idx" and "id " are other fields.
    const cases: [string, string | undefined][] = [
      ["id: prime\nretry: 10\n\n", "prime"],
      ["id: 1\ndata: a\n\nid: 2\r\n\r\nidx: 3\nid : 4\n\n", "2"],
      ["id: 1\r\rid\r\r", undefined],
      ["id: 1\ndata: a\n\nid:\ndata: b\n\n", undefined],
      ["id: 1\n\nid: 2\ndata: cut", "1"],
      ["data: a\n\n", undefined],
    ];
    for (const [text, expected] of cases) {
      const bytes = Buffer.from(text);
      expect((await read([bytes])).progress.lastEventId).toBe(expected);
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 8 }), async (cuts) => {
          const parts: Uint8Array[] = [];
          let start = 0;
          for (const cut of [...cuts].sort((a, b) => a - b).concat(bytes.length)) {
            parts.push(bytes.subarray(start, cut));
            start = cut;
          }
          expect((await read(parts)).progress.lastEventId).toBe(expected);
        }),
      );
    }
  });

  it("ignores one leading byte order mark, however the chunks cut it", async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("data: a\n\n")]);
    for (let cut = 0; cut <= 4; cut++) {
      const { events } = await read([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(events).toEqual([{ data: "a" }]);
    }
  });

  it("does not deliver an event cut off by the end of the stream", async () => {
    const { events } = await read([Buffer.from('data: {"complete":true}\n\ndata: {"cut":')]);
    expect(events).toEqual([{ data: '{"complete":true}' }]);
  });

  it("fails with LIMIT on an event past the ceiling, while it is still arriving", async () => {
    let delivered = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      yield Buffer.from("data: ");
      for (;;) {
        delivered++;
        yield Buffer.alloc(1024, "x");
      }
    }
    const error = (await readSse(body(endless()), { maxEventBytes: 64 * 1024, transportName: "test", onEvent: () => {} }).catch(
      (e: unknown) => e,
    )) as McpTransportError;
    expect(error).toBeInstanceOf(McpTransportError);
    expect(error.reason).toBe("LIMIT");
    expect(error.limitBytes).toBe(64 * 1024);
    expect(delivered).toBeLessThan(70);
  });

  it("measures an event in UTF-8 bytes, not characters", async () => {
    const data = "é".repeat(600); // 1200 bytes
    await expect(read([Buffer.from(`data: ${data}\n\n`)], 1000)).rejects.toMatchObject({ reason: "LIMIT" });
    await expect(read([Buffer.from(`data: ${data}\n\n`)], 1200)).resolves.toMatchObject({ events: [{ data }] });
  });

  it("reports each chunk as activity, and stops on what onEvent throws", async () => {
    let activity = 0;
    const failure = new McpTransportError("PROTOCOL", "bad event");
    const error = await readSse(chunks([Buffer.from("data: a\n\n"), Buffer.from("data: b\n\n")]), {
      maxEventBytes: 100,
      transportName: "test",
      onActivity: () => activity++,
      onEvent: () => {
        throw failure;
      },
    }).catch((e: unknown) => e);
    expect(error).toBe(failure);
    expect(activity).toBe(1);
  });
});
