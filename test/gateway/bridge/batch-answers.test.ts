/**
 * The one line that answers a host's batch (batch-answers.ts): JSON-RPC 2.0, "Batch": the array
 * goes "after all of the batch Request objects have been processed", and "If there are no Response
 * objects contained within the Response array ... the server MUST NOT return an empty Array and
 * should return nothing at all". A request the host cancelled is answered with nothing
 * (basic/utilities/cancellation).
 */
import { describe, expect, it } from "vitest";
import { BatchAnswers } from "../../../src/gateway/bridge/batch-answers.js";
import type { JsonRpcResponse } from "../../../src/protocol/jsonrpc.js";

const ok = (id: number): JsonRpcResponse => ({ jsonrpc: "2.0", id, result: {} });

function batch(): { answers: BatchAnswers; written: JsonRpcResponse[][] } {
  const written: JsonRpcResponse[][] = [];
  return { answers: new BatchAnswers((responses) => written.push(responses)), written };
}

describe("BatchAnswers", () => {
  it("writes one array once the last request is answered, not before", () => {
    const { answers, written } = batch();
    const [first, second] = [answers.member(), answers.member()];
    answers.seal();
    second.send(ok(2));
    expect(written).toEqual([]);
    first.send(ok(1));
    first.send(ok(1));
    expect(written).toEqual([[ok(2), ok(1)]]);
  });

  it("waits for every request to have its share: one answered while the batch is handed on does not end it", () => {
    const { answers, written } = batch();
    answers.member().send(ok(1));
    const later = answers.member();
    expect(written).toEqual([]);
    answers.seal();
    later.send(ok(2));
    expect(written).toEqual([[ok(1), ok(2)]]);
  });

  it("leaves a cancelled request out, and writes nothing when no request is left to answer", () => {
    const one = batch();
    const [kept, cancelled] = [one.answers.member(), one.answers.member()];
    one.answers.seal();
    cancelled.withdraw();
    kept.send(ok(1));
    expect(one.written).toEqual([[ok(1)]]);

    const none = batch();
    const only = none.answers.member();
    none.answers.seal();
    only.withdraw();
    expect(none.written).toEqual([]);
  });
});
