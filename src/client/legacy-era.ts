/**
 * The legacy era (revisions 2024-11-05 to 2025-11-25): the `initialize` handshake, then plain
 * requests. An HTTP session the server forgot (404) is renewed once and the request retried once.
 */
import { McpTransportError } from "../errors.js";
import { ModernMethod } from "../protocol/modern.js";
import type { Implementation, InitializeResult, ServerCapabilities } from "../protocol/schemas.js";
import type { RequestOptions, TransportSession } from "../session/session.js";
import type { EraName, ProtocolEra, SessionSource } from "./era.js";
import { initializeLegacy, type HandshakeOptions } from "./legacy-handshake.js";

/** Methods that exist only in the modern era. */
const MODERN_ONLY: ReadonlySet<string> = new Set([ModernMethod.discover, ModernMethod.subscriptionsListen]);

export class LegacyEra implements ProtocolEra {
  readonly name: EraName = "legacy";
  private result!: InitializeResult;
  private revision!: string;
  private renewal: Promise<void> | undefined;

  private constructor(
    private readonly handshake: Omit<HandshakeOptions, "signal">,
    private source: SessionSource,
  ) {}

  /** Runs the handshake on an open session. */
  static async start(session: TransportSession, options: HandshakeOptions): Promise<LegacyEra> {
    const { signal, ...handshake } = options;
    const era = new LegacyEra(handshake, { session });
    await era.initialize(session, signal);
    return era;
  }

  bind(source: SessionSource): void {
    this.source = source;
  }

  get protocolVersion(): string {
    return this.revision;
  }

  get serverInfo(): Implementation {
    return this.result.serverInfo;
  }

  get serverCapabilities(): ServerCapabilities {
    return this.result.capabilities;
  }

  get instructions(): string | undefined {
    return this.result.instructions;
  }

  checkMethod(method: string, label: string): void {
    if (MODERN_ONLY.has(method)) {
      throw new McpTransportError(
        "PROTOCOL",
        `${label} is not available: ${method} exists from protocol revision 2026-07-28, and this server speaks ${this.revision}`,
        { kind: "method_unavailable", method },
      );
    }
  }

  request(method: string, params: Record<string, unknown> | undefined, options: RequestOptions): Promise<Record<string, unknown>> {
    // The session of this call, renewed on it if the server forgot it.
    const session = this.source.session;
    return session.request(method, params, options).catch((error: unknown) => this.renewAndRetry(error, session, method, params, options));
  }

  notify(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    return this.source.session.notify(method, params);
  }

  private async renewAndRetry(
    error: unknown,
    session: TransportSession,
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    if (!(error instanceof McpTransportError) || !error.sessionExpired) throw error;
    // The server forgot the session (HTTP 404): initialize again, then retry this request once.
    this.renewal ??= this.initialize(session, options.signal).finally(() => (this.renewal = undefined));
    await this.renewal;
    return session.request(method, params, options);
  }

  private async initialize(session: TransportSession, signal: AbortSignal | undefined): Promise<void> {
    const handshake = await initializeLegacy(session, { ...this.handshake, signal });
    this.result = handshake.result;
    this.revision = handshake.protocolVersion;
  }
}
