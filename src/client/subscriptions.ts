/**
 * Change notifications in both eras through one call, `client.listen(filter)`:
 *
 * - modern era (2026-07-28): a long-lived `subscriptions/listen` request carrying the filter
 *   (basic/patterns/subscriptions). It resolves once the server acknowledges, with the subset it
 *   agreed to; a new filter replaces the stream (the old one is cancelled).
 * - legacy era: list-changed notifications need no request, and each resource URI is
 *   subscribed with `resources/subscribe`.
 *
 * Either way the notifications reach the same listeners (`onToolsListChanged`,
 * `onResourceUpdated`, ...).
 */
import { McpTransportError } from "../errors.js";
import { Method } from "../protocol/methods.js";
import { MetaKey, ModernMethod } from "../protocol/modern.js";
import type { TransportSession } from "../session/session.js";
import { didYouMean } from "../util/option-names.js";
import { describeValue } from "../util/whole-number.js";
import { checkNonEmptyString } from "./call-arguments.js";
import type { ProtocolEra } from "./era.js";

export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these URIs. */
  resourceSubscriptions?: string[];
}

export const ACKNOWLEDGED = "notifications/subscriptions/acknowledged";

const FLAGS = ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const;
const FILTER_KEYS: readonly string[] = [...FLAGS, "resourceSubscriptions"];

/**
 * Refuses a filter `listen()` cannot send as meant, before anything is sent: a key it does not
 * take (dropped, it would leave the caller listening for nothing), a flag that is not a boolean,
 * or `resourceSubscriptions` that is not an array of URIs (a string would be spread into one
 * subscription per character).
 */
export function checkSubscriptionFilter(filter: unknown): asserts filter is SubscriptionFilter {
  const taken = `the filter takes ${FILTER_KEYS.join(", ")}`;
  if (typeof filter !== "object" || filter === null || Array.isArray(filter)) {
    throw new TypeError(`listen: the filter must be an object; ${taken}`);
  }
  for (const key of Object.keys(filter)) {
    if (!FILTER_KEYS.includes(key)) throw new TypeError(`listen: unknown filter key ${JSON.stringify(key)}${didYouMean(key, FILTER_KEYS)}; ${taken}`);
  }
  const given = filter as Record<string, unknown>;
  for (const flag of FLAGS) {
    if (given[flag] !== undefined && typeof given[flag] !== "boolean") {
      throw new TypeError(`listen: "${flag}" must be true or false, got ${describeValue(given[flag])}`);
    }
  }
  const uris = given.resourceSubscriptions;
  if (uris === undefined) return;
  if (!Array.isArray(uris)) {
    throw new TypeError(`listen: "resourceSubscriptions" must be an array of resource URIs (["file:///a.txt"]), got ${describeValue(uris)}`);
  }
  uris.forEach((uri: unknown, index) => checkNonEmptyString(uri, "listen", `"resourceSubscriptions[${index}]"`));
}

/** The union of two filters: a listener added never drops one added before. */
export function mergeFilters(a: SubscriptionFilter, b: SubscriptionFilter): SubscriptionFilter {
  const merged: SubscriptionFilter = {};
  for (const key of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const) {
    if (a[key] || b[key]) merged[key] = true;
  }
  const uris = [...new Set([...(a.resourceSubscriptions ?? []), ...(b.resourceSubscriptions ?? [])])];
  if (uris.length > 0) merged.resourceSubscriptions = uris;
  return merged;
}

export class Subscriptions {
  private filter: SubscriptionFilter = {};
  private stream: AbortController | undefined;
  private readonly subscribedUris = new Set<string>();

  /** Widens the filter and (re)opens what the era needs; resolves with what the server agreed to. */
  async listen(session: TransportSession, era: ProtocolEra, more: SubscriptionFilter, timeoutMs: number): Promise<SubscriptionFilter> {
    this.filter = mergeFilters(this.filter, more);
    if (era.name === "legacy") {
      for (const uri of this.filter.resourceSubscriptions ?? []) {
        if (this.subscribedUris.has(uri)) continue;
        await era.request(Method.resourcesSubscribe, { uri }, { timeoutMs, label: `subscribe ${JSON.stringify(uri)}` });
        this.subscribedUris.add(uri);
      }
      return this.filter;
    }
    return this.openStream(session, era, timeoutMs);
  }

  /** Ends the stream (the connection is closing, or a new one replaces it). */
  stop(): void {
    this.stream?.abort(new McpTransportError("DISCONNECTED", "the subscription was replaced or closed"));
    this.stream = undefined;
  }

  /** After a reconnection: the old stream died with its connection; open it again if one was wanted. */
  async resume(session: TransportSession, era: ProtocolEra, timeoutMs: number): Promise<void> {
    this.stream = undefined;
    this.subscribedUris.clear();
    if (Object.keys(this.filter).length > 0) await this.listen(session, era, {}, timeoutMs);
  }

  private openStream(session: TransportSession, era: ProtocolEra, timeoutMs: number): Promise<SubscriptionFilter> {
    this.stop();
    const stream = new AbortController();
    this.stream = stream;
    let id: number | undefined;
    return new Promise<SubscriptionFilter>((resolve, reject) => {
      const stopAck = session.onNotification(ACKNOWLEDGED, (params) => {
        const meta = params._meta as Record<string, unknown> | undefined;
        if (id === undefined || meta?.[MetaKey.subscriptionId] !== id) return;
        done();
        resolve((params.notifications as SubscriptionFilter | undefined) ?? {});
      });
      const timer = setTimeout(() => {
        done();
        stream.abort();
        reject(new McpTransportError("TIMEOUT", `subscriptions/listen was not acknowledged within ${timeoutMs} ms (${session.description})`, { timeoutMs }));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        stopAck();
      };
      era
        .request(ModernMethod.subscriptionsListen, { notifications: this.filter }, {
          longLived: true,
          signal: stream.signal,
          label: "subscriptions/listen",
          onDispatch: (dispatched) => (id = dispatched),
        })
        .then(
          () => {
            // The server ended the subscription gracefully; nothing is pending any more.
            done();
            if (this.stream === stream) this.stream = undefined;
            resolve({});
          },
          (error: unknown) => {
            done();
            if (this.stream === stream) this.stream = undefined;
            reject(error);
          },
        );
    });
  }
}
