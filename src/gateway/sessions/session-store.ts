/**
 * The legacy sessions of one replica: opened at `initialize` within `maxSessions` (503 past it)
 * and `maxSessionsPerPrincipal` (429 past it), found by `Mcp-Session-Id`, ended by DELETE, by
 * their child's death (then 404, so the caller initializes again), or after `sessionIdleMs`
 * without a request. The map is kept in order of last activity, so the reaper looks only at the
 * oldest sessions, and one timer, set for the oldest, serves them all.
 */
import { randomUUID } from "node:crypto";
import type { Principal } from "../gateway-options.js";
import type { ChildExitCause } from "../ops/telemetry.js";
import { LegacySession } from "./legacy-session.js";

export type SessionEndCause = "deleted" | "idle" | "child_exited" | "shutdown" | "failed_to_start";

/** What the child's exit is counted as, for each way a session ends. */
const CHILD_EXIT_CAUSE: Record<SessionEndCause, ChildExitCause> = {
  deleted: "session_ended",
  idle: "idle",
  child_exited: "session_ended",
  shutdown: "shutdown",
  failed_to_start: "session_ended",
};

export interface SessionStoreOptions {
  maxSessions: number;
  maxSessionsPerPrincipal: number;
  sessionIdleMs: number;
  maxStoredEvents: number;
  /** The count changed (telemetry). */
  counted(count: number): void;
  /** A session ended, with why (its child is being stopped). */
  ended(session: LegacySession, cause: SessionEndCause): void;
}

export type OpenResult = { session: LegacySession } | { refused: "sessions_full" | "principal_sessions_full" };

export class SessionStore {
  private readonly sessions = new Map<string, LegacySession>();
  private readonly perPrincipal = new Map<string, number>();
  private readonly stopping = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: SessionStoreOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  /** A new session for this principal, or which cap refuses it. */
  open(principal: Principal): OpenResult {
    if (this.closed || this.sessions.size >= this.options.maxSessions) return { refused: "sessions_full" };
    const count = this.perPrincipal.get(principal.principal) ?? 0;
    if (count >= this.options.maxSessionsPerPrincipal) return { refused: "principal_sessions_full" };
    // A random UUID: visible ASCII, and not guessable from another session's id.
    const session = new LegacySession(randomUUID(), principal, this.options.maxStoredEvents);
    this.sessions.set(session.id, session);
    this.perPrincipal.set(principal.principal, count + 1);
    this.options.counted(this.sessions.size);
    this.schedule();
    return { session };
  }

  /** The live session of this id, if any. */
  get(id: string): LegacySession | undefined {
    const session = this.sessions.get(id);
    return session === undefined || session.ended ? undefined : session;
  }

  /** The session was used now: it moves to the newest end of the order. */
  touch(session: LegacySession): void {
    if (!this.sessions.has(session.id)) return;
    session.lastActive = Date.now();
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
  }

  /** Ends a session and stops its child; resolves once the child exited. */
  end(session: LegacySession, cause: SessionEndCause): Promise<void> {
    if (this.sessions.get(session.id) !== session) return Promise.resolve();
    this.sessions.delete(session.id);
    const left = (this.perPrincipal.get(session.principal.principal) ?? 1) - 1;
    if (left > 0) this.perPrincipal.set(session.principal.principal, left);
    else this.perPrincipal.delete(session.principal.principal);
    this.options.counted(this.sessions.size);
    this.options.ended(session, cause);
    const stopped = session.end(CHILD_EXIT_CAUSE[cause]).catch(() => {});
    this.stopping.add(stopped);
    void stopped.finally(() => this.stopping.delete(stopped));
    return stopped;
  }

  /** Ends every session's GET stream (the front is closing); the sessions stay. */
  endStreams(): void {
    for (const session of this.sessions.values()) session.endStream();
  }

  /** Ends every session; resolves once every child exited. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.all([...this.sessions.values()].map((session) => this.end(session, "shutdown")));
    await Promise.all([...this.stopping]);
  }

  private schedule(): void {
    if (this.timer !== undefined || this.closed) return;
    const oldest = this.sessions.values().next().value;
    if (oldest === undefined) return;
    const wait = Math.max(0, oldest.lastActive + this.options.sessionIdleMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.reap();
    }, wait);
    // Reaping never keeps the process alive by itself.
    this.timer.unref();
  }

  private reap(): void {
    const now = Date.now();
    for (const session of [...this.sessions.values()]) {
      if (session.lastActive + this.options.sessionIdleMs > now) break;
      // A session whose request is still running is busy, not idle.
      if (session.inFlight > 0) this.touch(session);
      else void this.end(session, "idle");
    }
    this.schedule();
  }
}
