/** What a promise rejected with, for tests that expect a failure. */
import { expect } from "vitest";
import { McpTransportError } from "../../src/index.js";

/** The rejection of `promise`, whatever it is; a result fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection, got a result");
    },
    (error: unknown) => error,
  );
}

/** The failure of `promise`, which must be an McpTransportError. */
export async function failure(promise: Promise<unknown>): Promise<McpTransportError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(McpTransportError);
  return error as McpTransportError;
}
