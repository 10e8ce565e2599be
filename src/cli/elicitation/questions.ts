/**
 * What the terminal's elicitation prompts share: the server's text made safe to print, and the
 * one-letter questions (Enter, d to decline, c to cancel) with their answers.
 */
import { forTerminal } from "../render.js";
import type { TerminalInput } from "./terminal-input.js";

/**
 * A server's text as it may be printed: no control character (no escape sequence), and none of
 * the invisible characters that reorder or hide text (bidirectional overrides, zero-width ones).
 */
export function shown(text: string): string {
  return forTerminal(text).replace(/[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g, "");
}

/** Each line of `text`, indented under the line that introduces it. */
export function indented(text: string, by = "  "): string {
  return `${shown(text)
    .split("\n")
    .map((line) => `${by}${line}`)
    .join("\n")}\n`;
}

/** The answers a question takes: by letter and word; the empty line (Enter) is the first one. */
export type Choice = "go" | "edit" | "decline" | "cancel";

const WORDS: Record<string, Choice> = {
  "": "go",
  y: "go",
  yes: "go",
  e: "edit",
  edit: "edit",
  d: "decline",
  decline: "decline",
  n: "decline",
  no: "decline",
  c: "cancel",
  cancel: "cancel",
};

/**
 * Asks `prompt` until the answer is one of `allowed`; `null` when the input ended. Lines typed
 * before the prompt never answer it (see `TerminalInput.ask`'s `fresh`).
 */
export async function decide<C extends Choice>(input: TerminalInput, prompt: string, allowed: readonly C[], signal: AbortSignal): Promise<C | null> {
  for (let first = true; ; first = false) {
    const line = await input.ask(prompt, signal, { fresh: first });
    if (line === null) return null;
    const choice = WORDS[line.trim().toLowerCase()];
    if (choice !== undefined && (allowed as readonly Choice[]).includes(choice)) return choice as C;
    input.say(`  Answer with Enter, ${(allowed as readonly Choice[]).includes("edit") ? "e, " : ""}d or c.\n`);
  }
}
