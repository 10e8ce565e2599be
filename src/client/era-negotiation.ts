/**
 * Choosing the era at connect time (basic/versioning, "Backward Compatibility"), so that one
 * client reaches servers of both eras with the same code, by default, without the user choosing.
 *
 * - stdio and other single-stream wires: probe with `server/discover`. A result, or a recognized
 *   modern error, means modern. Any other error means legacy, then `initialize` (on a fresh
 *   process if the server exited on the early request). No answer within the short probe time
 *   starts `initialize` beside the still-pending probe, and whichever answers first decides, so a
 *   slow-starting modern server is not mistaken for a legacy one.
 * - HTTP: a modern request first; a result or a modern error body means modern; any other answer
 *   means legacy. 401/403, 5xx, an unreachable endpoint and a failed authorization are never
 *   taken as evidence.
 *
 * The verdict is remembered for the process per server (command line or URL), can be given by
 * the user (say, from a previous run), and is probed again when a remembered verdict proves wrong.
 */
import { McpTransportError } from "../errors.js";
import { isModernErrorCode } from "../protocol/modern.js";
import { LATEST_LEGACY_REVISION, isLegacyRevision, isModernRevision, type Revision } from "../protocol/revisions.js";
import type { TransportSession } from "../session/session.js";
import { raceAbort } from "../util/abort.js";
import type { EraName, ProtocolEra } from "./era.js";
import { LegacyEra } from "./legacy-era.js";
import type { HandshakeOptions } from "./legacy-handshake.js";
import { ModernEra, type ModernEraOptions } from "./modern-era.js";
import { pinnedLegacyRefusal } from "./pinned-era-refusal.js";

/** `"auto"` (the default), one era, or one pinned revision. */
export type ProtocolChoice = "auto" | EraName | Revision;

/**
 * How long a stdio probe waits before `initialize` is tried beside it, in ms. Well under the
 * request timeout: a legacy server may never answer `server/discover`.
 * @default 3_000
 */
export const DEFAULT_PROBE_TIMEOUT_MS = 3_000;

const verdicts = new Map<string, EraName>();

/** The verdicts this process has reached, by server; handy to persist across runs. */
export function rememberedEra(server: string): EraName | undefined {
  return verdicts.get(server);
}

/** Forgets every remembered verdict (tests, or after servers were upgraded). */
export function forgetEras(): void {
  verdicts.clear();
}

export interface NegotiationContext {
  /** Names the server for the verdict cache: the command line or the URL. */
  server: string;
  /** HTTP answers with statuses; single-stream wires need the probe timeout. */
  http: boolean;
  choice: ProtocolChoice;
  /** The choice is the user's `protocolVersion`, not a transport's own era: a refusal can name the pin. */
  pinned: boolean;
  /** A verdict the user supplied (e.g. from a previous run); proved wrong, it is probed again. */
  hint: EraName | undefined;
  probeTimeoutMs: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** A new session, opened; handlers and listeners already installed. */
  openSession(): Promise<TransportSession>;
  legacy: Omit<HandshakeOptions, "signal">;
  modern: ModernEraOptions;
}

export interface Negotiated {
  session: TransportSession;
  era: ProtocolEra;
}

export async function negotiateEra(context: NegotiationContext): Promise<Negotiated> {
  const { choice } = context;
  if (choice === "legacy" || isLegacyRevision(choice)) {
    const revision = isLegacyRevision(choice) ? choice : (context.legacy.protocolVersion ?? LATEST_LEGACY_REVISION);
    const legacy = { ...context.legacy, protocolVersion: revision };
    try {
      return remember(context, await withSession(context, (session) => startLegacy({ ...context, legacy }, session)));
    } catch (error) {
      throw (context.pinned ? pinnedLegacyRefusal(error, choice, revision, context.server) : undefined) ?? error;
    }
  }
  if (choice === "modern" || isModernRevision(choice)) {
    const modern = { ...context.modern, protocolVersion: isModernRevision(choice) ? choice : context.modern.protocolVersion };
    return remember(context, await withSession(context, (session) => startModern({ ...context, modern }, session)));
  }
  const known = context.hint ?? verdicts.get(context.server);
  if (known) {
    const session = await context.openSession();
    try {
      return remember(context, { session, era: await (known === "legacy" ? startLegacy(context, session) : startModern(context, session)) });
    } catch (error) {
      const broken = wireBroke(error, session);
      await session.close();
      if (broken || !provesVerdictWrong(error, context)) throw error;
      verdicts.delete(context.server);
    }
  }
  return remember(context, await probe(context));
}

function remember(context: NegotiationContext, negotiated: Negotiated): Negotiated {
  verdicts.set(context.server, negotiated.era.name);
  return negotiated;
}

async function withSession(context: NegotiationContext, start: (session: TransportSession) => Promise<ProtocolEra>): Promise<Negotiated> {
  const session = await context.openSession();
  try {
    return { session, era: await start(session) };
  } catch (error) {
    await session.close();
    throw error;
  }
}

async function startLegacy(context: NegotiationContext, session: TransportSession): Promise<ProtocolEra> {
  return LegacyEra.start(session, { ...context.legacy, signal: context.signal });
}

async function startModern(context: NegotiationContext, session: TransportSession): Promise<ProtocolEra> {
  const era = new ModernEra(context.modern, { session });
  await era.discover(session, { signal: context.signal, timeoutMs: context.timeoutMs });
  return era;
}

/** A failure that is an answer from the server (not an outage) can overturn a remembered verdict. */
function provesVerdictWrong(error: unknown, context: NegotiationContext): boolean {
  if (!(error instanceof McpTransportError) || context.signal.aborted) return false;
  return !notEvidence(error);
}

/** 401/403, 5xx, unreachable endpoints and failed authorizations say nothing about the era (basic/versioning). */
function notEvidence(error: McpTransportError): boolean {
  // An authorization that failed (a refused grant, say) failed before the server could answer.
  return error.reason === "UNAVAILABLE" || error.httpStatus === 401 || error.httpStatus === 403 || error.authStep !== undefined;
}

/**
 * The wire broke the protocol and ended the connection (a stdout line that is not JSON-RPC, a
 * message past the ceiling). No era explains that: another process under the other era would only
 * meet it again, until the deadline hid it behind a TIMEOUT. An answer that broke its schema on a
 * connection still open is not this (a legacy server may answer `server/discover` with anything).
 */
function wireBroke(error: unknown, session: TransportSession): boolean {
  if (!(error instanceof McpTransportError) || session.isOpen) return false;
  return error.reason === "LIMIT" || (error.reason === "PROTOCOL" && error.code === undefined && error.httpStatus === undefined);
}

/** Whether a failed discover came from a modern server, and which legacy revision it would take. */
function modernEvidence(error: McpTransportError): { modern: boolean; legacyOnly: boolean } {
  const supported = (error.serverData as { supported?: unknown; supportedVersions?: unknown } | undefined) ?? {};
  const versions = Array.isArray(supported.supported) ? supported.supported : Array.isArray(supported.supportedVersions) ? supported.supportedVersions : [];
  const legacyOnly = versions.length > 0 && !versions.some(isModernRevision) && versions.some(isLegacyRevision);
  return { modern: isModernErrorCode(error.code) || (Array.isArray(supported.supportedVersions) && !legacyOnly), legacyOnly };
}

async function probe(context: NegotiationContext): Promise<Negotiated> {
  let session = await context.openSession();
  const modern = new ModernEra(context.modern, { session });
  // Stopped when the handshake wins the race below, so the unanswered probe does not linger.
  const probeStop = new AbortController();
  const discovery = modern.discover(session, {
    signal: AbortSignal.any([context.signal, probeStop.signal]),
    timeoutMs: context.timeoutMs,
    label: "server/discover (era probe)",
  });
  // The probe's outcome is read below; no rejection of it may go unobserved meanwhile.
  discovery.catch(() => {});
  try {
    const early = context.http ? await settle(discovery) : await settleWithin(discovery, context.probeTimeoutMs, context.signal);
    if (early?.ok) return { session, era: modern };
    if (early && !early.ok) {
      const error = early.error;
      if (!(error instanceof McpTransportError) || notEvidence(error) || wireBroke(error, session) || context.signal.aborted) throw error;
      const evidence = modernEvidence(error);
      if (evidence.modern && !evidence.legacyOnly) throw error;
      // Legacy. A server that exited on the early request gets a fresh process; HTTP a fresh connection.
      if (!session.isOpen || context.http) {
        await session.close();
        session = await context.openSession();
      }
      return { session, era: await startLegacy(context, session) };
    }
    // No answer yet: try the handshake beside the pending probe; the first success decides.
    const era = await firstOf(discovery.then(() => modern as ProtocolEra), startLegacy(context, session));
    if (era !== modern) probeStop.abort();
    return { session, era };
  } catch (error) {
    await session.close();
    throw error;
  }
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** The outcome if the promise settles within `ms`, otherwise undefined (it keeps running). */
async function settleWithin<T>(promise: Promise<T>, ms: number, signal: AbortSignal): Promise<Settled<T> | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await raceAbort(Promise.race([settle(promise), elapsed]), signal);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves with the first to succeed; when both fail, rejects with the handshake's failure. */
function firstOf<T>(probe: Promise<T>, handshake: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let failures = 0;
    let handshakeError: unknown;
    const fail = (error: unknown, isHandshake: boolean) => {
      if (isHandshake) handshakeError = error;
      if (++failures === 2) reject(handshakeError ?? error);
    };
    probe.then(resolve, (error: unknown) => fail(error, false));
    handshake.then(resolve, (error: unknown) => fail(error, true));
  });
}
