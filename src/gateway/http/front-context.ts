/**
 * What every part of the HTTP front shares for one gateway: the checked options, the telemetry,
 * the in-flight admission, the sessions, the pool relay and the way to spawn a session's child.
 */
import type { Principal } from "../gateway-options.js";
import type { ResolvedGatewayOptions } from "../check-options.js";
import type { GatewayTelemetry } from "../ops/telemetry.js";
import type { Relay } from "../relay.js";
import type { OpenSessionChild } from "../sessions/session-child.js";
import type { SessionStore } from "../sessions/session-store.js";
import type { Admission } from "./admission.js";
import type { CallerCheck } from "./caller-auth.js";
import type { HostPolicy } from "./host-origin.js";
import type { InFlightRequests } from "./in-flight.js";
import type { ListenStreams } from "./listen-streams.js";
import type { ToolHeaderCatalog } from "./tool-header-catalog.js";

export interface FrontContext {
  options: ResolvedGatewayOptions;
  telemetry: GatewayTelemetry;
  admission: Admission;
  /** The open `subscriptions/listen` streams, within `maxListenStreams`. */
  listenStreams: ListenStreams;
  sessions: SessionStore;
  /**
   * The shared children for one caller: 2026-07-28 requests, and legacy ones in stateless mode.
   * A caller is a principal on one HTTP connection (`connection`, the request's socket), so that
   * its `notifications/cancelled` reaches only requests it sent (children/caller-relays.ts).
   */
  poolFor(era: "modern" | "legacy", principal: Principal, connection?: object): Relay;
  /** A legacy session's own child (session mode). */
  openSessionChild: OpenSessionChild;
  inFlight: InFlightRequests;
  /** Which tool arguments 2026-07-28 callers mirror into `Mcp-Param-*` headers, to check them. */
  toolHeaders: ToolHeaderCatalog;
  hostPolicy: HostPolicy;
  checkCaller: CallerCheck;
  /** Set when the gateway stops taking requests (draining, closing): new ones get 503. */
  refusing(): boolean;
}
