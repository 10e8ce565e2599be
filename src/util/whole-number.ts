/**
 * The check of a whole-number option (a count, a size, a duration in ms), with one message shape
 * everywhere: where it was given, its name, the allowed range, what was given, and the default.
 */

/** Node's timers fire at once for a delay above this, so a longer deadline would be no deadline. */
export const MAX_TIMER_MS = 2_147_483_647;

export interface WholeNumberRange {
  /** The smallest value allowed (0 often means "off"). */
  min: number;
  /** The largest value allowed. @default MAX_TIMER_MS for a name ending in `Ms`, else Number.MAX_SAFE_INTEGER */
  max?: number;
  /** Shown in the message, so the reader knows what leaving it out gives. */
  defaultValue?: number;
  /** Shown after the minimum, e.g. "off". */
  minMeans?: string;
}

/** The value when it is a whole number in range; a TypeError naming `where` and `name` otherwise. */
export function checkWholeNumber(value: unknown, name: string, where: string, range: WholeNumberRange): number {
  const max = range.max ?? (name.endsWith("Ms") ? MAX_TIMER_MS : Number.MAX_SAFE_INTEGER);
  if (typeof value !== "number" || !Number.isInteger(value) || value < range.min || value > max) {
    const unit = name.endsWith("Ms") ? " of ms" : "";
    const min = range.minMeans ? `${range.min} (${range.minMeans})` : String(range.min);
    const fallback = range.defaultValue === undefined ? "" : ` (default ${range.defaultValue})`;
    throw new TypeError(`${where}: "${name}" must be a whole number${unit} from ${min} to ${max}, got ${describeValue(value)}${fallback}`);
  }
  return value;
}

/** A value as a message may show it: strings quoted, objects by kind only (they may hold secrets). */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) {
    return String(value);
  }
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
