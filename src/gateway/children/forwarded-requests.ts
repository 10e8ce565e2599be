/**
 * The requests one child is working on, as the gateway forwarded them: the id the gateway gave
 * each (unique in that child), the caller's own id and progress token, and where its traffic
 * goes. A child's answer, progress or listen notification is looked up here by the child's id
 * (which is also the progress token the child got); a caller's `notifications/cancelled` by the
 * caller's scope and id, so that two callers using the same ids never reach each other's requests.
 */
import type { Deadline } from "../../collections/deadlines.js";
import { IdTable } from "../../collections/id-table.js";
import type { RequestId } from "../../protocol/jsonrpc.js";
import type { RequestSink } from "../relay.js";
import type { ProgressToken } from "./rewrite.js";

export interface ForwardedRequest extends Deadline {
  /** The id the child knows the request by; also its progress token when the caller asked for progress. */
  readonly childId: number;
  readonly callerId: RequestId;
  /** The caller's progress token, when it asked for progress. */
  readonly callerToken: ProgressToken | undefined;
  readonly method: string;
  readonly sink: RequestSink;
  /** Who sent it: the key under which a caller's cancel finds it. Absent for the gateway's own requests (probes). */
  readonly scope: object | undefined;
  /** `subscriptions/listen`: open by design, not counted by the read stall or the request timeout. */
  readonly longLived: boolean;
  /** It asked for log messages (`_meta` logLevel), so `notifications/message` may belong to it. */
  readonly wantsLogs: boolean;
  /** The request timeout it was given, in ms (the time it had left, when it waited in a pool's queue). */
  readonly timeoutMs: number;
  /** Undoes what waits on it (its deadline, its abort listener); called once, when it leaves the table. */
  release: () => void;
}

export class ForwardedRequests {
  private lastId = 0;
  private readonly byChildId = new IdTable<ForwardedRequest>();
  private readonly byScope = new Map<object, Map<RequestId, ForwardedRequest>>();
  private readonly withLogs = new Set<ForwardedRequest>();

  /** Requests the child is working on. */
  get size(): number {
    return this.byChildId.size;
  }

  /** A new id, never given before in this child. Numbers: every JSON-RPC peer takes them. */
  nextId(): number {
    return ++this.lastId;
  }

  add(entry: ForwardedRequest): void {
    this.byChildId.set(entry.childId, entry);
    if (entry.wantsLogs) this.withLogs.add(entry);
    if (entry.scope === undefined) return;
    let ids = this.byScope.get(entry.scope);
    if (!ids) this.byScope.set(entry.scope, (ids = new Map()));
    ids.set(entry.callerId, entry);
  }

  get(childId: unknown): ForwardedRequest | undefined {
    return typeof childId === "number" ? this.byChildId.get(childId) : undefined;
  }

  /** The request a caller knows by `callerId`, among those it sent (`scope`). */
  ofCaller(scope: object, callerId: RequestId): ForwardedRequest | undefined {
    return this.byScope.get(scope)?.get(callerId);
  }

  /**
   * The one request that asked for logs, when there is exactly one and every request in flight
   * is its caller's (same scope): over stdio a log message names no request (2026-07-28
   * basic/transports/stdio, server/utilities/logging), and a server may log for a request that
   * did not ask (a misbehaving one, or a legacy one logging per session), so a log message while
   * another caller's request runs may be that caller's text. Only then can it be told whose it
   * is; otherwise it belongs to nobody rather than to the wrong caller. A session's child serves
   * one caller (one scope), so there the sole asker always gets it.
   */
  soleLogRequest(): ForwardedRequest | undefined {
    if (this.withLogs.size !== 1) return undefined;
    const asker: ForwardedRequest = this.withLogs.values().next().value!;
    if (this.byChildId.size === 1) return asker;
    for (const entry of this.byChildId.valueList()) {
      if (entry !== asker && (asker.scope === undefined || entry.scope !== asker.scope)) return undefined;
    }
    return asker;
  }

  /** The one request of a caller in flight (listen streams aside), when there is exactly one. */
  soleCallerRequest(): ForwardedRequest | undefined {
    let sole: ForwardedRequest | undefined;
    for (const entry of this.byChildId.valueList()) {
      if (entry.longLived || entry.scope === undefined) continue;
      if (sole) return undefined;
      sole = entry;
    }
    return sole;
  }

  /** Removes a request (answered, failed, cancelled) and releases what waited on it; undefined if it was not there. */
  take(childId: unknown): ForwardedRequest | undefined {
    const entry = this.get(childId);
    if (!entry) return undefined;
    this.byChildId.delete(entry.childId);
    this.withLogs.delete(entry);
    if (entry.scope !== undefined) {
      const ids = this.byScope.get(entry.scope);
      if (ids?.get(entry.callerId) === entry) ids.delete(entry.callerId);
      if (ids?.size === 0) this.byScope.delete(entry.scope);
    }
    entry.release();
    return entry;
  }

  /** Removes every request, for a child that is gone. */
  takeAll(): ForwardedRequest[] {
    return this.byChildId.valueList().map((entry) => this.take(entry.childId)!);
  }
}
