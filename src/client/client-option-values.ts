/**
 * The values of the client's options that no other part checks where it reads them, checked once
 * when the client is made, before anything is spawned or sent: a value of the wrong kind would
 * otherwise reach the server, which answers -32603 or nothing useful, or change what the client
 * does without a word (an unknown `protocolVersion` was taken as "auto", an unknown `era` as
 * "modern"). Each is a TypeError naming the option, what was given and what is taken.
 *
 * Checked elsewhere, at the same moment: the four ceilings (the session), `maxPages` and
 * `validateOutput` (the client), `probeTimeoutMs` (the connection), `reconnect` (reconnect.ts),
 * `handlers` (handler-options.ts).
 */
import { LEGACY_REVISIONS, MODERN_REVISIONS } from "../protocol/revisions.js";
import { checkWholeNumber, describeValue } from "../util/whole-number.js";
import { isPlainObject } from "../util/plain-object.js";
import { checkSignalOption } from "./call-option-names.js";
import type { ClientOptions } from "./client-options.js";
import { DEFAULT_MAX_INPUT_ROUNDS } from "./input-rounds.js";

// As the neighbouring checks of values (maxPages, probeTimeoutMs, validateOutput) say where.
const WHERE = "options";

const PROTOCOL_CHOICES: readonly string[] = ["auto", "legacy", "modern", ...LEGACY_REVISIONS, ...MODERN_REVISIONS];
const ERAS: readonly string[] = ["legacy", "modern"];

/**
 * The capabilities both eras define, each an object in the schema (2025-11-25 `ClientCapabilities`;
 * 2026-07-28 adds `extensions`). Other keys are the client's own ("not a closed set") and pass.
 */
const OBJECT_CAPABILITIES = ["experimental", "roots", "sampling", "elicitation", "tasks", "extensions"] as const;

/** The `Implementation` members that are strings when given (the schema's `BaseMetadata` and `Implementation`). */
const OPTIONAL_INFO_STRINGS = ["title", "description", "websiteUrl"] as const;

/** Throws a TypeError for the first option whose value is of a kind the client cannot use. */
export function checkClientOptionValues(options: ClientOptions): void {
  const given = options as Record<string, unknown>;
  if (given.clientInfo !== undefined) checkClientInfo(given.clientInfo);
  if (given.capabilities !== undefined) checkCapabilities(given.capabilities);
  if (given.protocolVersion !== undefined && !PROTOCOL_CHOICES.includes(given.protocolVersion as string)) {
    throw new TypeError(`${WHERE}: "protocolVersion" must be one of ${PROTOCOL_CHOICES.map((choice) => `"${choice}"`).join(", ")}, got ${describeValue(given.protocolVersion)} (default "auto")`);
  }
  if (given.era !== undefined && !ERAS.includes(given.era as string)) {
    throw new TypeError(`${WHERE}: "era" must be "legacy" or "modern" (a client's era, such as client.era saved from a previous run), got ${describeValue(given.era)}`);
  }
  if (given.maxInputRounds !== undefined) {
    checkWholeNumber(given.maxInputRounds, "maxInputRounds", WHERE, { min: 1, defaultValue: DEFAULT_MAX_INPUT_ROUNDS });
  }
  checkSignalOption(given.signal, WHERE);
}

function checkClientInfo(value: unknown): void {
  const shape = `{ name: string, version: string, title?: string }`;
  if (!isPlainObject(value)) throw new TypeError(`${WHERE}: "clientInfo" must be ${shape}, got ${describeValue(value)}`);
  for (const key of ["name", "version"] as const) {
    if (typeof value[key] !== "string") throw new TypeError(`${WHERE}: "clientInfo.${key}" must be a string (clientInfo is ${shape}), got ${describeValue(value[key])}`);
  }
  for (const key of OPTIONAL_INFO_STRINGS) {
    if (value[key] !== undefined && typeof value[key] !== "string") throw new TypeError(`${WHERE}: "clientInfo.${key}" must be a string, got ${describeValue(value[key])}`);
  }
  if (value.icons !== undefined && !Array.isArray(value.icons)) {
    throw new TypeError(`${WHERE}: "clientInfo.icons" must be an array of icons ({ src, mimeType?, sizes? }), got ${describeValue(value.icons)}`);
  }
}

function checkCapabilities(value: unknown): void {
  if (!isPlainObject(value)) {
    throw new TypeError(`${WHERE}: "capabilities" must be an object of capabilities declared beside the handlers' (such as { experimental: { ... } }), got ${describeValue(value)}`);
  }
  for (const key of OBJECT_CAPABILITIES) {
    // undefined is allowed: over a capability a handler implies, it takes the capability away (capability-merge.ts).
    if (value[key] !== undefined && !isPlainObject(value[key])) {
      throw new TypeError(`${WHERE}: "capabilities.${key}" must be an object (present means supported, e.g. { }), got ${describeValue(value[key])}`);
    }
  }
}
