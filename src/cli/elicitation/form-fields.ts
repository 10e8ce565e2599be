/**
 * The fields of a form-mode elicitation as the terminal asks them: the restricted JSON Schema of
 * client/elicitation ("Requested Schema": strings with their formats and lengths, numbers and
 * integers with their bounds, booleans, single- and multi-select enums, titled or not, and the
 * legacy `enumNames`), each read from one line of text and checked before it is sent, as the
 * specification asks clients to. Pure functions: the prompting is form-prompt.ts's.
 */

/** One property of `requestedSchema.properties`, as the server sent it. */
export type FieldSchema = Record<string, unknown>;

/** What an answer can be: the values `ElicitResult.content` holds. */
export type FieldValue = string | number | boolean | string[];

export interface FieldOption {
  value: string;
  /** What the user reads: the title, the legacy `enumNames` entry, or the value. */
  label: string;
}

export type Field =
  | { kind: "text"; format?: string; minLength?: number; maxLength?: number; pattern?: RegExp }
  | { kind: "number"; integer: boolean; minimum?: number; maximum?: number }
  | { kind: "boolean" }
  | { kind: "choice"; options: FieldOption[] }
  | { kind: "choices"; options: FieldOption[]; minItems?: number; maxItems?: number };

/** How a property is asked, from its schema; a type the terminal does not know is asked as text. */
export function fieldOf(schema: FieldSchema): Field {
  const type = schema.type;
  if (type === "boolean") return { kind: "boolean" };
  if (type === "number" || type === "integer") {
    return { kind: "number", integer: type === "integer", minimum: numberOf(schema.minimum), maximum: numberOf(schema.maximum) };
  }
  if (type === "array") {
    const items = isRecord(schema.items) ? schema.items : {};
    const options = optionsOf(items.enum, undefined) ?? titledOptions(items.anyOf);
    if (options) return { kind: "choices", options, minItems: numberOf(schema.minItems), maxItems: numberOf(schema.maxItems) };
  }
  const options = optionsOf(schema.enum, schema.enumNames) ?? titledOptions(schema.oneOf);
  if (options) return { kind: "choice", options };
  return {
    kind: "text",
    format: typeof schema.format === "string" ? schema.format : undefined,
    minLength: numberOf(schema.minLength),
    maxLength: numberOf(schema.maxLength),
    pattern: patternOf(schema.pattern),
  };
}

/** What the field takes, in a few words: `a whole number from 1 to 100`, `y or n`, `an email address`. */
export function hintOf(field: Field): string {
  switch (field.kind) {
    case "boolean":
      return "y or n";
    case "number": {
      const what = field.integer ? "a whole number" : "a number";
      return `${what}${range(field.minimum, field.maximum)}`;
    }
    case "choice":
      return `one of: ${numbered(field.options)} (its number or its value)`;
    case "choices": {
      const count = field.minItems !== undefined || field.maxItems !== undefined ? ` ${countRange(field.minItems, field.maxItems)}` : "";
      return `choose${count}, separated by commas: ${numbered(field.options)}`;
    }
    case "text": {
      const format = field.format !== undefined ? (FORMAT_NAMES[field.format] ?? `text (${field.format})`) : "text";
      const length =
        field.minLength !== undefined || field.maxLength !== undefined ? `, ${characters(field.minLength, field.maxLength)}` : "";
      return `${format}${length}`;
    }
  }
}

/** A value as the user reads it back (a choice by its label). */
export function showValue(field: Field, value: FieldValue): string {
  if (field.kind === "choice") return labelOf(field.options, String(value));
  if (field.kind === "choices" && Array.isArray(value)) return value.map((item) => labelOf(field.options, item)).join(", ");
  if (field.kind === "boolean") return value === true ? "yes" : "no";
  return Array.isArray(value) ? value.join(", ") : String(value);
}

/** The answer read from one line (already known not to be empty), or what is wrong with it. */
export function parseAnswer(field: Field, line: string): { value: FieldValue } | { problem: string } {
  // Spaces around an answer are never meant.
  const text = line.trim();
  switch (field.kind) {
    case "boolean": {
      const answer = text.toLowerCase();
      if (["y", "yes", "true"].includes(answer)) return { value: true };
      if (["n", "no", "false"].includes(answer)) return { value: false };
      return { problem: "answer y or n" };
    }
    case "number": {
      if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text)) return { problem: `that is not ${field.integer ? "a whole number" : "a number"}` };
      const value = Number(text);
      if (field.integer && !Number.isInteger(value)) return { problem: "that is not a whole number" };
      if ((field.minimum !== undefined && value < field.minimum) || (field.maximum !== undefined && value > field.maximum)) {
        return { problem: `it must be${range(field.minimum, field.maximum)}` };
      }
      return { value };
    }
    case "choice": {
      const chosen = pick(field.options, text);
      return chosen === undefined ? { problem: "choose one of the numbers or values shown" } : { value: chosen };
    }
    case "choices": {
      const chosen: string[] = [];
      for (const part of text.split(",").map((piece) => piece.trim()).filter((piece) => piece !== "")) {
        const value = pick(field.options, part);
        if (value === undefined) return { problem: `"${part}" is not one of the choices` };
        if (!chosen.includes(value)) chosen.push(value);
      }
      if ((field.minItems !== undefined && chosen.length < field.minItems) || (field.maxItems !== undefined && chosen.length > field.maxItems)) {
        return { problem: `choose ${countRange(field.minItems, field.maxItems)}` };
      }
      return { value: chosen };
    }
    case "text":
      return checkText(field, text);
  }
}

const FORMAT_NAMES: Record<string, string> = {
  email: "an email address",
  uri: "a URI (with its scheme, such as https:)",
  date: "a date (YYYY-MM-DD)",
  "date-time": "a date and time (YYYY-MM-DDThh:mm:ssZ)",
};

function checkText(field: Extract<Field, { kind: "text" }>, value: string): { value: string } | { problem: string } {
  const length = [...value].length;
  if ((field.minLength !== undefined && length < field.minLength) || (field.maxLength !== undefined && length > field.maxLength)) {
    return { problem: `it must be ${characters(field.minLength, field.maxLength)} long` };
  }
  const format = field.format === undefined ? undefined : FORMATS[field.format];
  if (format && !format(value)) return { problem: `that is not ${FORMAT_NAMES[field.format!]}` };
  if (field.pattern && !field.pattern.test(value)) return { problem: "it does not have the form the server asks for" };
  return { value };
}

const FORMATS: Record<string, (value: string) => boolean> = {
  email: (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value),
  uri: (value) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) && URL.canParse(value),
  date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && isCalendarDate(value),
  "date-time": (value) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value) && isCalendarDate(value.slice(0, 10)) && !Number.isNaN(Date.parse(value)),
};

function isCalendarDate(value: string): boolean {
  const [year, month, day] = value.split("-").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function pick(options: readonly FieldOption[], text: string): string | undefined {
  if (/^\d+$/.test(text)) {
    const index = Number(text) - 1;
    if (index >= 0 && index < options.length) return options[index]!.value;
  }
  return (options.find((option) => option.value === text) ?? options.find((option) => option.label.toLowerCase() === text.toLowerCase()))?.value;
}

function labelOf(options: readonly FieldOption[], value: string): string {
  return options.find((option) => option.value === value)?.label ?? value;
}

function numbered(options: readonly FieldOption[]): string {
  return options.map((option, index) => `${index + 1}) ${option.label}`).join("  ");
}

function range(minimum: number | undefined, maximum: number | undefined): string {
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return ` of at least ${minimum}`;
  if (maximum !== undefined) return ` of at most ${maximum}`;
  return "";
}

function countRange(minimum: number | undefined, maximum: number | undefined): string {
  if (minimum !== undefined && maximum !== undefined) return minimum === maximum ? `exactly ${minimum}` : `${minimum} to ${maximum}`;
  if (minimum !== undefined) return `at least ${minimum}`;
  if (maximum !== undefined) return `at most ${maximum}`;
  return "any number";
}

function characters(minimum: number | undefined, maximum: number | undefined): string {
  return `${countRange(minimum, maximum)} character${(maximum ?? minimum) === 1 ? "" : "s"}`;
}

function optionsOf(values: unknown, names: unknown): FieldOption[] | undefined {
  if (!Array.isArray(values) || values.length === 0 || !values.every((value) => typeof value === "string")) return undefined;
  const labels = Array.isArray(names) && names.length === values.length ? names : undefined;
  return values.map((value: string, index) => ({ value, label: typeof labels?.[index] === "string" ? labels[index] : value }));
}

function titledOptions(entries: unknown): FieldOption[] | undefined {
  if (!Array.isArray(entries) || entries.length === 0) return undefined;
  const options: FieldOption[] = [];
  for (const entry of entries) {
    if (!isRecord(entry) || typeof entry.const !== "string") return undefined;
    options.push({ value: entry.const, label: typeof entry.title === "string" ? entry.title : entry.const });
  }
  return options;
}

function patternOf(pattern: unknown): RegExp | undefined {
  if (typeof pattern !== "string") return undefined;
  try {
    return new RegExp(pattern, "u");
  } catch {
    return undefined; // a pattern that is not one checks nothing here; the server checks its own
  }
}

function numberOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
