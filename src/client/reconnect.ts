/**
 * The opt-in reconnect policy: when a connection drops (not when it is closed by us), the client
 * opens its transport again and runs the handshake again, after a delay that starts at 1 s and
 * doubles up to 60 s, with jitter so that many clients do not return at the same instant, and
 * gives up after a bounded number of attempts.
 */
import { didYouMean, firstUnknownKey } from "../util/option-names.js";
import { MAX_TIMER_MS, checkWholeNumber, describeValue } from "../util/whole-number.js";

export interface ReconnectOptions {
  /** Attempts after a drop before the client gives up and ends. @default 5 */
  maxAttempts?: number;
  /** The delay before the first attempt, in ms. @default 1_000 */
  initialDelayMs?: number;
  /** The longest delay between attempts, in ms. @default 60_000 */
  maxDelayMs?: number;
}

export interface ReconnectPolicy {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RECONNECT: Readonly<ReconnectPolicy> = Object.freeze({
  maxAttempts: 5,
  initialDelayMs: 1_000,
  maxDelayMs: 60_000,
});

/** The policy in force, or undefined when reconnecting is off; bad values throw naming the key. */
export function resolveReconnect(option: boolean | ReconnectOptions | undefined): ReconnectPolicy | undefined {
  if (option === undefined || option === false) return undefined;
  if (option !== true && (typeof option !== "object" || option === null || Array.isArray(option))) {
    // A truthy value of another kind ("yes", 1) used to turn reconnecting on with the defaults.
    throw new TypeError(`options: "reconnect" must be true, false or { maxAttempts?, initialDelayMs?, maxDelayMs? }, got ${describeValue(option)} (default false)`);
  }
  const given = option === true ? {} : option;
  const names = Object.keys(DEFAULT_RECONNECT);
  const unknown = firstUnknownKey(given, names);
  if (unknown !== undefined) {
    throw new TypeError(`options: unknown key "reconnect.${unknown}"${didYouMean(unknown, names)}; reconnect takes ${names.join(", ")}`);
  }
  const policy = { ...DEFAULT_RECONNECT };
  for (const key of Object.keys(DEFAULT_RECONNECT) as (keyof ReconnectPolicy)[]) {
    const value = given[key];
    if (value === undefined) continue;
    const min = key === "maxAttempts" ? 1 : 0;
    policy[key] = checkWholeNumber(value, `reconnect.${key}`, "options", { min, max: key === "maxAttempts" ? 1_000_000 : MAX_TIMER_MS, defaultValue: DEFAULT_RECONNECT[key] });
  }
  return policy;
}

/**
 * The delay before attempt `attempt` (0 for the first): exponential, capped, with "equal jitter"
 * (half of it fixed, half random), so the delay never collapses to zero yet replicas spread out.
 */
export function reconnectDelay(policy: ReconnectPolicy, attempt: number, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** attempt);
  return Math.round(exponential / 2 + (exponential / 2) * random());
}
