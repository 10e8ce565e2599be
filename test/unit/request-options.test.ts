/** The options a request carries from the client to the session (src/client/request-options.ts). */
import { describe, expect, it } from "vitest";
import { sentOptions, type SentOptions } from "../../src/client/request-options.js";

describe("sentOptions", () => {
  const signal = new AbortController().signal;
  const onProgress = () => {};
  const onDispatch = (_id: number) => {};
  const full: Required<SentOptions> = {
    label: "callTool \"x\"",
    timeoutMs: 5,
    signal,
    onProgress,
    resetTimeoutOnProgress: false,
    maxTotalTimeoutMs: 50,
    headers: { "x-a": "1" },
    longLived: true,
    onDispatch,
    onLateResult: () => {},
    meta: { traceparent: "t" },
    urlElicitationRetry: false,
  };

  it("copies every option a request carries into a new object", () => {
    const copy = sentOptions(full);
    expect(copy).not.toBe(full);
    expect(copy).toEqual(full);
  });

  it("replaces the dispatch hook when one is given", () => {
    const other = (_id: number) => {};
    expect(sentOptions(full, other).onDispatch).toBe(other);
    expect(full.onDispatch).toBe(onDispatch);
  });

  it("leaves out what the layers below do not read, and gives every copy the same keys", () => {
    const { urlElicitationRetry: _repeat, ...common } = full;
    const withTask = { ...common, task: true, onTaskStatus: () => {}, validateOutput: false } as SentOptions;
    expect(Object.keys(sentOptions(withTask))).toEqual(Object.keys(common));
    expect(Object.keys(sentOptions({ label: "ping" }))).toEqual(Object.keys(common));
  });

  it("carries urlElicitationRetry only on the request that sets it (a tool task's repeat after -32042)", () => {
    expect(sentOptions({ label: "ping" })).not.toHaveProperty("urlElicitationRetry");
    expect(sentOptions({ label: "callTool \"x\"", urlElicitationRetry: false }).urlElicitationRetry).toBe(false);
  });
});
