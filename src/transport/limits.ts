/**
 * The four ceilings every connection keeps, whatever its transport.
 *
 * `maxMessageBytes` and `readTimeoutMs` are kept at the wire by each transport, before a message
 * is parsed; `maxInFlight` and `timeoutMs` are kept once, by the session, so every transport has
 * them. A limit only one transport keeps is a limit nobody can rely on.
 */
import { McpTransportError } from "../errors.js";
import { MAX_TIMER_MS, checkWholeNumber, describeValue } from "../util/whole-number.js";

export { MAX_TIMER_MS, describeValue };

export interface Limits {
  /**
   * The largest message, in bytes of UTF-8, read or written. Past it, LIMIT.
   * @default 16_777_216 (16 MiB)
   */
  maxMessageBytes: number;
  /**
   * How long, in ms, a read may stall while a request waits for an answer. Past it, TIMEOUT.
   * Any byte from the server restarts the count.
   * @default 300_000 (5 minutes: a server may keep a reply stream open while it works)
   */
  readTimeoutMs: number;
  /**
   * Requests outstanding on one connection at once; further requests wait in order for a slot,
   * and the wait counts against their `timeoutMs`.
   * @default 64
   */
  maxInFlight: number;
  /**
   * One operation end to end, in ms, including the wait for a slot. Past it, TIMEOUT.
   * @default 60_000
   */
  timeoutMs: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxMessageBytes: 16 * 1024 * 1024,
  readTimeoutMs: 300_000,
  maxInFlight: 64,
  timeoutMs: 60_000,
});

export const LIMIT_NAMES = Object.keys(DEFAULT_LIMITS) as readonly (keyof Limits)[];


const UPPER_BOUND: Record<keyof Limits, number> = {
  maxMessageBytes: Number.MAX_SAFE_INTEGER,
  readTimeoutMs: MAX_TIMER_MS,
  maxInFlight: 1_000_000,
  timeoutMs: MAX_TIMER_MS,
};

/**
 * Checks one ceiling given by a user, and says what was wrong and what is allowed.
 * `where` names the place the value came from (an option, a server in a file).
 */
export function checkLimit(name: keyof Limits, value: unknown, where = "options"): number {
  return checkWholeNumber(value, name, where, { min: 1, max: UPPER_BOUND[name], defaultValue: DEFAULT_LIMITS[name] });
}

/** The ceilings in force: the defaults, overridden by what the user gave, each value checked. */
export function resolveLimits(given: Partial<Limits> | undefined, where = "options"): Limits {
  const limits: Limits = { ...DEFAULT_LIMITS };
  if (!given) return limits;
  for (const name of LIMIT_NAMES) {
    const value = given[name];
    if (value !== undefined) limits[name] = checkLimit(name, value, where);
  }
  return limits;
}


/**
 * Whether `text` takes more than `limitBytes` in UTF-8. UTF-8 needs at most 3 bytes per UTF-16
 * code unit, so a text shorter than a third of the limit is never counted.
 */
export function isOverBytes(text: string, limitBytes: number): boolean {
  return text.length * 3 > limitBytes && Buffer.byteLength(text, "utf8") > limitBytes;
}

/** LIMIT for a message to send past `maxMessageBytes`, before it reaches the wire: the check every transport makes. */
export function checkOutgoingSize(text: string, limitBytes: number, transport: string): void {
  if (isOverBytes(text, limitBytes)) throw messageTooLarge(limitBytes, "sent", transport);
}

/** The failure for a message past `maxMessageBytes`, the same words on every transport. */
export function messageTooLarge(limitBytes: number, direction: "received" | "sent", transport: string): McpTransportError {
  return new McpTransportError(
    "LIMIT",
    `a message ${direction} over ${transport} is larger than maxMessageBytes (${limitBytes} bytes)`,
    { limitBytes },
  );
}
