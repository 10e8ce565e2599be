/**
 * What the redaction checks read, and the check itself: everything a failure shows (String(),
 * JSON, message and stack, of it and of every cause), everything written to the console while a
 * test runs, and which credentials appear in any of it.
 */
import { format, inspect } from "node:util";
import { vi } from "vitest";
import type { McpTransportError } from "../../src/index.js";
import { failure } from "./failure.js";

/** How many causes deep an error is read; a longer chain is a loop, or not ours. */
const CAUSE_DEPTH = 10;

/** The members of a private JWK that are secret. */
export const PRIVATE_JWK_MEMBERS = ["d", "p", "q", "dp", "dq", "qi"] as const;

/**
 * Every rendering of an error and of each of its causes: String(), JSON, and the message and stack
 * of an Error; with `inspect`, util.inspect's too (hidden properties and all), as a console prints it.
 */
export function errorRenderings(error: unknown, options: { inspect?: boolean } = {}): string[] {
  const texts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < CAUSE_DEPTH; depth++) {
    const inspected = () => inspect(current, { depth: 10, showHidden: true });
    texts.push(String(current));
    if (options.inspect === true) texts.push(inspected());
    try {
      texts.push(JSON.stringify(current) ?? "");
    } catch {
      // A cycle: the inspected form stands for it.
      texts.push(inspected());
    }
    if (current instanceof Error) texts.push(current.message, current.stack ?? "");
    current = (current as { cause?: unknown }).cause;
  }
  return texts;
}

/** Everything an error shows, as one text. */
export function everythingShown(error: unknown): string {
  return errorRenderings(error).join("\n");
}

/** The secrets that appear in one of `texts`, each as its first six characters and the text's start: empty when none does. */
export function leaksIn(secrets: Iterable<string>, texts: readonly string[]): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    for (const text of texts) {
      if (text.includes(secret)) found.push(`${secret.slice(0, 6)}… in ${JSON.stringify(text.slice(0, 120))}`);
    }
  }
  return found;
}

/** Pieces of a private key's secret text, any of which showing is a leak: slices of a PEM's body, or the JWK's `members`. */
export function keyPieces(key: string | Record<string, unknown>, members: readonly string[] = PRIVATE_JWK_MEMBERS): string[] {
  if (typeof key !== "string") return members.map((member) => key[member]).filter((value): value is string => typeof value === "string");
  const body = key.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  const pieces: string[] = [];
  for (let i = 0; i + 12 <= body.length; i += 12) pieces.push(body.slice(i, i + 12));
  return pieces;
}

/** What a run of tests showed: every error kept, everything written while capturing. */
export interface ShownRecord {
  /** Every rendering, util.inspect's included, of every error kept. */
  readonly errorTexts: string[];
  /** Everything written to the console, stdout and stderr while capturing. */
  readonly written: string[];
  /** Keeps what is written from now on, still writing it through: every console method, process.stdout and process.stderr. */
  captureOutput(): void;
  /** Stops keeping what is written. */
  restoreOutput(): void;
  /** The failure of `promise`, which must be an McpTransportError, kept. */
  failureOf(promise: Promise<unknown>): Promise<McpTransportError>;
  /** The secrets that appear in an error kept or in what was written (see leaksIn). */
  leaks(secrets: Iterable<string>): string[];
}

export function recordShown(): ShownRecord {
  const errorTexts: string[] = [];
  const written: string[] = [];
  const restores: (() => void)[] = [];
  return {
    errorTexts,
    written,
    captureOutput() {
      const terminal = globalThis.console;
      for (const method of ["log", "info", "warn", "error", "debug", "trace"] as const) {
        const original = terminal[method].bind(terminal);
        const spy = vi.spyOn(terminal, method).mockImplementation((...args: unknown[]) => {
          written.push(format(...args));
          original(...args);
        });
        restores.push(() => spy.mockRestore());
      }
      for (const stream of [process.stdout, process.stderr]) {
        const original = stream.write;
        stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
          written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
          return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
        } as typeof stream.write;
        restores.push(() => {
          stream.write = original;
        });
      }
    },
    restoreOutput() {
      for (const restore of restores.splice(0).reverse()) restore();
    },
    async failureOf(promise) {
      return failure(
        promise.catch((error: unknown) => {
          errorTexts.push(...errorRenderings(error, { inspect: true }));
          throw error;
        }),
      );
    },
    leaks: (secrets) => leaksIn(secrets, [...errorTexts, ...written]),
  };
}
