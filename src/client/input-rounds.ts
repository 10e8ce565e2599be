/**
 * Multi round-trip requests (basic/patterns/mrtr): a modern server that needs input answers a
 * `tools/call`, `prompts/get` or `resources/read` with `resultType: "input_required"` and the
 * questions in `inputRequests`. The client answers each through the same handlers the legacy era
 * uses for server-to-client requests, and retries the original request with `inputResponses` and
 * the exact `requestState`.
 */
import { McpTransportError } from "../errors.js";
import type { InputRequiredResult } from "../protocol/modern.js";
import { handlerFor, type ClientHandlers } from "./handlers.js";

/** Rounds of input one request may take before the client gives up. */
export const DEFAULT_MAX_INPUT_ROUNDS = 8;

/** The answers to every question of one `input_required` result, by the server's keys. */
export async function answerInputRequests(
  result: InputRequiredResult,
  handlers: ClientHandlers,
  signal: AbortSignal | undefined,
  label: string,
): Promise<Record<string, unknown>> {
  const entries = Object.entries(result.inputRequests ?? {});
  const controller = new AbortController();
  const stop = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", stop, { once: true });
  try {
    const answers = await Promise.all(
      entries.map(async ([key, request]) => {
        const handler = handlerFor(handlers, request.method, { era: "modern" });
        if (!handler) {
          throw new McpTransportError(
            "PROTOCOL",
            `${label}: the server asked for ${request.method}, which this client did not declare; give a handler for it in options.handlers`,
            { method: request.method },
          );
        }
        try {
          return [key, await handler({ params: request.params ?? {}, signal: controller.signal })] as const;
        } catch (cause) {
          if (cause instanceof McpTransportError || signal?.aborted) throw cause;
          throw new McpTransportError("PROTOCOL", `${label}: the server's ${request.method} input request could not be answered`, {
            method: request.method,
            cause,
          });
        }
      }),
    );
    return Object.fromEntries(answers);
  } finally {
    signal?.removeEventListener("abort", stop);
  }
}

/** The original request's parameters for the next round: the answers, and the state echoed exactly. */
export function retryParams(
  original: Record<string, unknown> | undefined,
  result: InputRequiredResult,
  inputResponses: Record<string, unknown>,
): Record<string, unknown> {
  const { inputResponses: _previousAnswers, requestState: _previousState, ...rest } = original ?? {};
  const params: Record<string, unknown> = { ...rest };
  if (result.inputRequests !== undefined) params.inputResponses = inputResponses;
  if (result.requestState !== undefined) params.requestState = result.requestState;
  return params;
}
