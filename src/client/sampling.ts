/**
 * Sampling (client/sampling), and tools in sampling: a handler declares `sampling.tools` when it
 * says it can run a model with the server's tools. A request that offers tools to a client that
 * did not declare them is refused with -32602, as the specification requires, and so is one whose
 * tool results break its rules ("Message Content Constraints"): a user message of tool results
 * holds nothing else, and it answers every tool use of the assistant message before it.
 */
import { schemas, schemasOf } from "../protocol/schema-registry.js";
import type { CreateMessageParams, CreateMessageResult, SamplingContent, SamplingMessage } from "../protocol/schemas.js";
import { checked, type PreparedHandler } from "./handler-checks.js";
import type { EraName } from "./era.js";
import type { SamplingHandler } from "./handlers.js";

/** A sampling handler that says what it can do beyond plain messages. */
export interface SamplingHandlers {
  /** Answers `sampling/createMessage`. */
  createMessage: SamplingHandler;
  /**
   * The handler runs the model with the tools a request offers (`tools`, `toolChoice`), and may
   * answer with `tool_use` content (`stopReason: "toolUse"`): declares `sampling.tools`.
   * @default false
   */
  tools?: boolean;
}

/** The handler of either form, as one object. */
export function samplingHandlers(option: SamplingHandler | SamplingHandlers): SamplingHandlers {
  return typeof option === "function" ? { createMessage: option } : option;
}

/** The `sampling` capability the handler implies. */
export function samplingCapability(option: SamplingHandler | SamplingHandlers): Record<string, object> {
  return samplingHandlers(option).tools === true ? { tools: {} } : {};
}

/**
 * Answers `sampling/createMessage` with the user's handler, its parameters (by the rules of `era`:
 * its `tools` are that era's tools) and answer checked.
 */
export function samplingAnswerer(option: SamplingHandler | SamplingHandlers, era: EraName = "legacy"): PreparedHandler {
  const { createMessage, tools } = samplingHandlers(option);
  return checked(
    () => schemasOf(era).CreateMessageParamsSchema,
    () => schemas().CreateMessageResultSchema,
    "sampling",
    (params, signal) => createMessage({ params, signal }),
    {
      params: (params) => {
        if ((params.tools !== undefined || params.toolChoice !== undefined) && tools !== true) {
          return "This client did not declare sampling.tools: it takes no tools or toolChoice in sampling";
        }
        return toolResultProblem(params.messages);
      },
      result: (result, params) => toolUsesAllowed(result, params),
    },
  );
}

function blocks(message: Pick<SamplingMessage, "content">): SamplingContent[] {
  return Array.isArray(message.content) ? message.content : [message.content];
}

/** What is wrong with the tool results of a conversation, in the specification's words, if anything. */
function toolResultProblem(messages: readonly SamplingMessage[]): string | undefined {
  let open: Set<string> | undefined; // the tool uses of the assistant message just before
  for (const message of messages) {
    const content = blocks(message);
    const results = content.filter((block) => block.type === "tool_result");
    if (results.length > 0 && (message.role !== "user" || results.length !== content.length)) {
      return "Tool results mixed with other content";
    }
    if (open !== undefined) {
      const answered = new Set(results.map((block) => block.toolUseId));
      if ([...open].some((id) => !answered.has(id))) return "Tool result missing in request";
    }
    if (results.some((block) => !open?.has(block.toolUseId))) return "Tool result without a matching tool use in the message before";
    const uses = message.role === "assistant" ? content.filter((block) => block.type === "tool_use") : [];
    open = uses.length > 0 ? new Set(uses.map((block) => block.id)) : undefined;
  }
  return open === undefined ? undefined : "Tool result missing in request";
}

/**
 * A model asks for tools only as the assistant, only when the request did not forbid them, and
 * only for tools the request offered by name: a use of any other tool is an invented answer.
 * Under `toolChoice: { mode: "required" }` the "Model MUST use at least one tool before
 * completing" ("Tool Choice Modes"), so an answer that completes (any stop but `maxTokens`,
 * where the model was cut off before it could) without a tool use breaks the request.
 */
function toolUsesAllowed(result: CreateMessageResult, params: CreateMessageParams): boolean {
  const uses = blocks(result).filter((block) => block.type === "tool_use");
  if (uses.length === 0) return params.toolChoice?.mode !== "required" || result.stopReason === "maxTokens";
  if (result.role !== "assistant" || params.toolChoice?.mode === "none") return false;
  const offered = new Set((params.tools ?? []).map((tool) => tool.name));
  return uses.every((use) => offered.has(use.name));
}
