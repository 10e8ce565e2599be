import { describe, expect, it } from "vitest";
import { RequestAbort, toAbortSignal } from "../../src/transport/http/request-abort.js";
import { delay } from "../../src/util/abort.js";

describe("RequestAbort: an HTTP request's abort switch", () => {
  it("runs each listener once, on abort, and not one that was removed or added after", () => {
    const abort = new RequestAbort();
    const heard: string[] = [];
    const removed = () => heard.push("removed");
    abort.signal.addEventListener("abort", () => heard.push("first"));
    abort.signal.addEventListener("abort", removed);
    abort.signal.addEventListener("abort", () => heard.push("second"));
    abort.signal.removeEventListener("abort", removed);
    abort.abort();
    abort.abort();
    abort.signal.addEventListener("abort", () => heard.push("late"));
    expect(heard).toEqual(["first", "second"]);
    expect(abort.signal.aborted).toBe(true);
  });

  it("has an AbortError as its reason unless given one, as AbortController does", () => {
    const plain = new RequestAbort();
    plain.abort();
    expect(plain.reason).toBeInstanceOf(DOMException);
    expect((plain.reason as DOMException).name).toBe("AbortError");
    const given = new RequestAbort();
    const reason = new Error("closed");
    given.abort(reason);
    expect(given.reason).toBe(reason);
  });

  it("cuts a delay short, as a real signal does", async () => {
    const abort = new RequestAbort();
    const waiting = delay(10_000, abort.signal);
    abort.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
  });

  it("gives a user's fetch a real AbortSignal that follows it", () => {
    const real = new AbortController().signal;
    expect(toAbortSignal(real)).toBe(real);
    const abort = new RequestAbort();
    const follower = toAbortSignal(abort.signal);
    expect(follower).toBeInstanceOf(AbortSignal);
    expect(follower.aborted).toBe(false);
    abort.abort(new Error("gone"));
    expect(follower.aborted).toBe(true);
    expect((follower.reason as Error).message).toBe("gone");
    const already = new RequestAbort();
    already.abort();
    expect(toAbortSignal(already.signal).aborted).toBe(true);
  });
});
