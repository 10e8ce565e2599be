/**
 * How many connections the HTTP client keeps to one endpoint: at most `maxInFlight` +
 * `SPARE_CONNECTIONS`, and the spares are there so that nothing waits behind reply streams that
 * stay open (http-options.ts).
 */
import type http from "node:http";
import { describe, expect, it } from "vitest";
import { SPARE_CONNECTIONS } from "../../src/transport/http/http-options.js";
import { jsonRpcResult, startEndpoint, type RecordedRequest } from "../fixtures/http-endpoint.js";
import { connectHttp, owned } from "./helpers.js";

describe("connections to one endpoint", () => {
  it("are at most maxInFlight + the spares, however many calls overlap", async () => {
    // Undici frees a connection on the turn after its response ends: a call sent as the one
    // before it is answered found every connection busy, and each strand of calls held two.
    let most = 0;
    const endpoint = owned(
      await startEndpoint(async (_request, _res, self) => {
        most = Math.max(most, await self.connections());
        return false;
      }),
    );
    const maxInFlight = 32;
    const client = await connectHttp(endpoint.url, { listen: false }, { maxInFlight });
    const texts = Array.from({ length: 20 * maxInFlight }, (_, i) => `call ${i}`);
    const results = await Promise.all(texts.map((text) => client.callTool("echo", { text })));
    expect(results.map((result) => result.content[0])).toEqual(texts.map((text) => ({ type: "text", text })));
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(maxInFlight + SPARE_CONNECTIONS);
  });

  it("a question the server asks on every open reply stream is still answered, and the GET stream stays open meanwhile", async () => {
    // maxInFlight calls hold their reply streams open until the client answers the server's
    // question on each; the answers are POSTs of their own, and the GET stream holds one more
    // connection. Without spares, the answers would wait for a connection that never frees.
    const maxInFlight = 2;
    const answers = new Map<unknown, (content: unknown) => void>();
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.method === "GET") return holdEventStream(res);
        const body = request.body ?? {};
        if (body.method === "tools/call") return askThenAnswer(request, res, answers);
        if (!("method" in body) && answers.has(body.id)) {
          answers.get(body.id)!((body.result as { content?: unknown }).content);
          res.writeHead(202).end();
          return true;
        }
        return false;
      }),
    );
    const client = await connectHttp(
      endpoint.url,
      {},
      {
        maxInFlight,
        handlers: { elicitation: async (asked) => ({ action: "accept", content: { name: `answer to ${asked.params.message}` } }) },
      },
    );
    await expect.poll(() => endpoint.count("GET")).toBe(1);
    const results = await Promise.all(["first", "second"].map((text) => client.callTool("ask", { text })));
    expect(results.map((result) => result.content[0])).toEqual([
      { type: "text", text: "answer to first" },
      { type: "text", text: "answer to second" },
    ]);
    expect(endpoint.clientClosed).toBe(0); // the GET stream was not given up to make room
  });
});

/** Answers a GET with an event stream that stays open until the client goes. */
function holdEventStream(res: http.ServerResponse): boolean {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(": open\n\n");
  return true;
}

/** A `tools/call` whose reply stream asks the client a question, and answers the call with what the client said. */
function askThenAnswer(request: RecordedRequest, res: http.ServerResponse, answers: Map<unknown, (content: unknown) => void>): boolean {
  const body = request.body!;
  const text = (body.params as { arguments: { text: string } }).arguments.text;
  const questionId = `question-${text}`;
  res.writeHead(200, { "content-type": "text/event-stream" });
  answers.set(questionId, (content) => {
    const name = (content as { name: string }).name;
    res.end(`data: ${jsonRpcResult(body.id, { content: [{ type: "text", text: name }] })}\n\n`);
  });
  const question = {
    jsonrpc: "2.0",
    id: questionId,
    method: "elicitation/create",
    params: { message: text, requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
  };
  res.write(`data: ${JSON.stringify(question)}\n\n`);
  return true;
}
