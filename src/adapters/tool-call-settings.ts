/**
 * How long each tool call an agent makes may take, and who hears its progress: for every call,
 * per server, and per call, in that order of precedence (the most specific word wins), given to
 * `connectAll`, to the agent adapters, or to one call.
 *
 * A call whose timeout restarts on progress (the default) carries a progress token, so a server
 * that reports progress keeps a long tool call alive, within `maxTotalTimeoutMs`.
 */
import type { CallOptions } from "../client/client.js";
import type { Progress } from "../session/session.js";
import { checkLimit } from "../transport/limits.js";
import { didYouMean, firstUnknownKey } from "../util/option-names.js";
import { MAX_TIMER_MS, checkWholeNumber } from "../util/whole-number.js";
import type { ServerTool } from "./tool-naming.js";

export interface ToolCallSettings {
  /** Each tool call end to end, in ms; past it the model reads that the tool timed out. @default the client's `timeoutMs` */
  timeoutMs?: number;
  /** Whether a progress notification restarts the `timeoutMs` count. @default true */
  resetTimeoutOnProgress?: boolean;
  /** The bound on a call however often progress restarts its count, in ms. @default ten times `timeoutMs` */
  maxTotalTimeoutMs?: number;
  /** Called for each progress notification of a call, with the tool it is about. */
  onProgress?: (progress: Progress, tool: ServerTool) => void;
}

export const TOOL_CALL_SETTING_NAMES = ["timeoutMs", "resetTimeoutOnProgress", "maxTotalTimeoutMs", "onProgress"] as const satisfies readonly (keyof ToolCallSettings)[];

/** Settings for every call, and per server by name over them. */
export interface LayeredToolCallSettings extends ToolCallSettings {
  /** Per server (its name in the `mcpServers` file, or the prefix given), over the settings for every call. */
  servers?: Record<string, ToolCallSettings>;
}

/** Checks settings where they are given, once; `where` names the option. */
export function checkToolCallSettings(settings: ToolCallSettings | undefined, where: string): void {
  if (settings === undefined) return;
  if (typeof settings !== "object" || settings === null) throw new TypeError(`${where} must be an object`);
  if (settings.timeoutMs !== undefined) checkLimit("timeoutMs", settings.timeoutMs, where);
  if (settings.maxTotalTimeoutMs !== undefined) checkWholeNumber(settings.maxTotalTimeoutMs, "maxTotalTimeoutMs", where, { min: 1, max: MAX_TIMER_MS });
  if (settings.resetTimeoutOnProgress !== undefined && typeof settings.resetTimeoutOnProgress !== "boolean") {
    throw new TypeError(`${where}: "resetTimeoutOnProgress" must be true or false, got a ${typeof settings.resetTimeoutOnProgress}`);
  }
  if (settings.onProgress !== undefined && typeof settings.onProgress !== "function") {
    throw new TypeError(`${where}: "onProgress" must be a function, got a ${typeof settings.onProgress}`);
  }
}

/** Checks settings for every call and per server. */
export function checkLayeredSettings(settings: LayeredToolCallSettings, where: string): void {
  checkToolCallSettings(settings, where);
  const servers = settings.servers;
  if (servers === undefined) return;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) throw new TypeError(`${where}: "servers" must be an object of settings by server name`);
  for (const [name, perServer] of Object.entries(servers)) {
    const at = `${where}: servers["${name}"]`;
    checkToolCallSettings(perServer, at);
    // A server's entry holds call settings only: another key (`timeout`) would be dropped without a word.
    checkSettingNames(perServer, TOOL_CALL_SETTING_NAMES, at);
  }
}

/** Every key of a layer of settings that stands alone (connectAll's `calls`): the settings and `servers`. */
export const LAYERED_SETTING_NAMES = [...TOOL_CALL_SETTING_NAMES, "servers"] as const;

/** Refuses a key of `settings` that is not in `allowed`, naming it, the nearest name and the names taken. */
export function checkSettingNames(settings: object, allowed: readonly string[], where: string): void {
  const unknown = firstUnknownKey(settings, allowed);
  if (unknown !== undefined) {
    throw new TypeError(`${where}: unknown setting "${unknown}"${didYouMean(unknown, allowed)}; the settings are ${allowed.join(", ")}`);
  }
}

/** The settings one server's calls get from one layer: its per-server settings over the general ones. */
export function settingsForServer(layer: LayeredToolCallSettings | undefined, server: string): ToolCallSettings {
  if (!layer) return {};
  return over(pick(layer), layer.servers && Object.hasOwn(layer.servers, server) ? pick(layer.servers[server]!) : {});
}

/** `top`'s settings over `base`'s; a setting left undefined does not hide one below it. */
export function over(base: ToolCallSettings, top: ToolCallSettings): ToolCallSettings {
  const merged: ToolCallSettings = { ...base };
  for (const name of TOOL_CALL_SETTING_NAMES) {
    if (top[name] !== undefined) (merged as Record<string, unknown>)[name] = top[name];
  }
  return merged;
}

function pick(settings: ToolCallSettings): ToolCallSettings {
  return over({}, settings);
}

/** The options of one call of `tool`: its own settings over the tool's, with the abort signal. */
export function callOptionsFor(tool: ServerTool, settings: ToolCallSettings, signal: AbortSignal | undefined): CallOptions {
  const merged = over(tool.call ?? {}, settings);
  const onProgress = merged.onProgress;
  return {
    signal,
    timeoutMs: merged.timeoutMs,
    resetTimeoutOnProgress: merged.resetTimeoutOnProgress,
    maxTotalTimeoutMs: merged.maxTotalTimeoutMs,
    onProgress: onProgress && ((progress) => onProgress(progress, tool)),
  };
}
