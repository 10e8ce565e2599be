/**
 * The options of the children's public classes, checked once where they are given: an unknown
 * key is refused with a "did you mean" (an option nobody reads is a mistake the user cannot see),
 * a bad number names the option, what it takes, and its default. The gateway's own options are
 * checked by the front (gateway/check-options.ts) before they get here; these checks are for
 * callers of the classes themselves, and cost nothing twice.
 */
import { checkLimit } from "../../transport/limits.js";
import { didYouMean, firstUnknownKey } from "../../util/option-names.js";
import { checkWholeNumber, describeValue } from "../../util/whole-number.js";
import type { ChildCommand } from "./child-command.js";
import type { ChildStderrMode, ChildStderrSource } from "./child-stderr.js";
import type { GatewayChildLimits } from "./gateway-child.js";

/** Refuses a key of `given` that is not one of `names`. */
export function checkNames(given: object, names: readonly string[], where: string): void {
  if (typeof given !== "object" || given === null) throw new TypeError(`${where}: options must be an object, got ${describeValue(given)}`);
  const unknown = firstUnknownKey(given, names);
  if (unknown !== undefined) {
    throw new TypeError(`${where}: unknown option "${unknown}"${didYouMean(unknown, names)}; the options are ${names.join(", ")}`);
  }
}

export const CHILD_LIMIT_NAMES = ["maxMessageBytes", "readTimeoutMs", "maxInFlight", "requestTimeoutMs"] as const satisfies readonly (keyof GatewayChildLimits)[];

/** The child ceilings given, each checked as the transport's ceilings are (`checkLimit`). */
export function checkChildLimits(limits: Partial<GatewayChildLimits> | undefined, where: string): void {
  if (limits === undefined) return;
  checkNames(limits, CHILD_LIMIT_NAMES, `${where} limits`);
  for (const name of CHILD_LIMIT_NAMES) {
    const value = limits[name];
    if (value === undefined) continue;
    if (name === "requestTimeoutMs") checkWholeNumber(value, name, `${where} limits`, { min: 1, defaultValue: 60_000 });
    else checkLimit(name, value, `${where} limits`);
  }
}

/** A whole number option in range, when given. */
export function checkCount(value: unknown, name: string, where: string, min: number, defaultValue: number): void {
  if (value === undefined || value === Number.POSITIVE_INFINITY) return;
  checkWholeNumber(value, name, where, { min, defaultValue });
}

/** The command is one the stdio transport can run (its constructor checks the rest). */
export function checkCommand(command: ChildCommand | undefined, where: string): void {
  if (typeof command !== "object" || command === null || typeof command.command !== "string" || command.command === "") {
    throw new TypeError(`${where}: "command" must be a ChildCommand ({ command, args, env, envAllow }); childCommandFor(target) makes one`);
  }
}

/** What becomes of the children's stderr, when given: "log" or "drop". */
export function checkChildStderr(value: unknown, where: string): asserts value is ChildStderrMode | undefined {
  if (value !== undefined && value !== "log" && value !== "drop") {
    throw new TypeError(
      `${where}: "childStderr" must be "log" (each line of a child's stderr a log line) or "drop" (none of it logged), got ${describeValue(value)}`,
    );
  }
}

/** Whose a child's stderr lines are, when given: an era of the callers, and a session id or none. */
export function checkStderrSource(source: ChildStderrSource | undefined, where: string): void {
  if (source === undefined) return;
  const era = (source as Partial<ChildStderrSource> | null)?.era;
  const sessionId = (source as Partial<ChildStderrSource> | null)?.sessionId;
  if ((era !== "modern" && era !== "legacy") || (sessionId !== undefined && typeof sessionId !== "string")) {
    throw new TypeError(`${where}: "stderrLog" must be { era: "modern" | "legacy", sessionId?: string }, got ${describeValue(source)}`);
  }
}
