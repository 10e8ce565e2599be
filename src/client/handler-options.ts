/**
 * `options.handlers`, checked once when the client is made: a key nobody reads is refused, and
 * each handler must have one of its forms. The forms are then brought to one, which the rest of
 * the client reads: `elicitation` as one handler per mode, `sampling` as `{ createMessage, tools }`.
 *
 * A bare `elicitation` function answers form mode, and also URL mode when the user declared
 * `capabilities.elicitation.url` by hand (as before the handlers had a form per mode).
 */
import { didYouMean, firstUnknownKey } from "../util/option-names.js";
import { describeValue } from "../util/whole-number.js";
import { isPlainObject } from "../util/plain-object.js";
import { isFileUri } from "./handler-checks.js";
import type { ElicitationHandlers, UrlElicitationHandler } from "./elicitation.js";
import type { ClientCapabilities, ClientHandlers, ElicitationHandler } from "./handlers.js";
import type { SamplingHandlers } from "./sampling.js";

/** Every key of `options.handlers`. */
export const HANDLER_NAMES = ["sampling", "elicitation", "roots"] as const satisfies readonly (keyof ClientHandlers)[];

// A handler added to ClientHandlers but not to the list above would be refused at run time; this fails the build instead.
const everyHandlerListed: Exclude<keyof ClientHandlers, (typeof HANDLER_NAMES)[number]> extends never ? true : never = true;
void everyHandlerListed;

const SAMPLING_KEYS = ["createMessage", "tools"] as const satisfies readonly (keyof SamplingHandlers)[];
const ELICITATION_KEYS = ["form", "url"] as const satisfies readonly (keyof ElicitationHandlers)[];

/** The handlers checked, in the one form the client reads; a bad one throws a TypeError naming it. */
export function resolveHandlers(given: ClientHandlers | undefined, capabilities: ClientCapabilities | undefined): ClientHandlers {
  if (given === undefined) return {};
  if (!isPlainObject(given as unknown)) throw new TypeError("McpClient: options.handlers must be an object (sampling, elicitation, roots)");
  refuseUnknown(given, HANDLER_NAMES, "options.handlers");
  const resolved: ClientHandlers = {};
  if (given.sampling !== undefined) resolved.sampling = checkSampling(given.sampling);
  if (given.elicitation !== undefined) resolved.elicitation = checkElicitation(given.elicitation, capabilities);
  if (given.roots !== undefined) {
    if (typeof given.roots !== "function" && !Array.isArray(given.roots)) {
      throw new TypeError("McpClient: options.handlers.roots must be a function or an array of roots ({ uri, name? })");
    }
    if (Array.isArray(given.roots)) checkRootList(given.roots);
    resolved.roots = given.roots;
  }
  return resolved;
}

function checkSampling(option: unknown): SamplingHandlers {
  if (typeof option === "function") return { createMessage: option as SamplingHandlers["createMessage"] };
  const what = "McpClient: options.handlers.sampling must be a function, or { createMessage: function, tools?: boolean }";
  if (!isPlainObject(option)) throw new TypeError(what);
  refuseUnknown(option, SAMPLING_KEYS, "options.handlers.sampling");
  if (typeof option.createMessage !== "function") throw new TypeError(`${what}; createMessage is missing`);
  if (option.tools !== undefined && typeof option.tools !== "boolean") {
    throw new TypeError("McpClient: options.handlers.sampling.tools must be true or false (true declares sampling.tools)");
  }
  return option as unknown as SamplingHandlers;
}

function checkElicitation(option: unknown, capabilities: ClientCapabilities | undefined): ElicitationHandlers {
  if (typeof option === "function") {
    const handler = option as ElicitationHandler;
    const declaresUrl = isPlainObject(capabilities?.elicitation) && capabilities.elicitation.url !== undefined;
    return declaresUrl ? { form: handler, url: handler as unknown as UrlElicitationHandler } : { form: handler };
  }
  const what = "McpClient: options.handlers.elicitation must be a function (form mode), or { form?: function, url?: function } with at least one";
  if (!isPlainObject(option)) throw new TypeError(what);
  refuseUnknown(option, ELICITATION_KEYS, "options.handlers.elicitation");
  for (const mode of ELICITATION_KEYS) {
    if (option[mode] !== undefined && typeof option[mode] !== "function") throw new TypeError(`${what}; ${mode} is not a function`);
  }
  if (option.form === undefined && option.url === undefined) throw new TypeError(what);
  return option as ElicitationHandlers;
}

/**
 * A fixed list is known now: a root that is not `{ uri: string, name?: string }` (the schema's
 * `Root`) would only fail when the server asks for the list, as an error the server is sent.
 */
function checkRootList(roots: readonly unknown[]): void {
  roots.forEach((root, index) => {
    const where = `McpClient: options.handlers.roots[${index}]`;
    if (!isPlainObject(root)) throw new TypeError(`${where} must be a root { uri: string, name?: string }, got ${describeValue(root)}`);
    if (typeof root.uri !== "string" || !isFileUri(root.uri)) {
      throw new TypeError(`${where}.uri must be a file:// URI (such as "file:///home/user/project"), got ${describeValue(root.uri)}`);
    }
    if (root.name !== undefined && typeof root.name !== "string") throw new TypeError(`${where}.name must be a string, got ${describeValue(root.name)}`);
  });
}

function refuseUnknown(given: object, allowed: readonly string[], where: string): void {
  const unknown = firstUnknownKey(given, allowed);
  if (unknown === undefined) return;
  throw new TypeError(`McpClient: unknown key "${unknown}" in ${where}${didYouMean(unknown, allowed)}; it takes ${allowed.join(", ")}`);
}
