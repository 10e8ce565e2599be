/**
 * "`events.closed` is called exactly once" (the seam's contract, transport/transport.ts): the rule
 * in one place. Every connection reports its end through `closedOnce`, whatever ends it first (the
 * peer, our own verdict, `close()`), and the session wraps the events it hands to any transport
 * the same way, so a transport written elsewhere cannot end a session twice either.
 */
import type { ConnectionEnding, ConnectionEvents } from "../transport.js";

/** The same events, with `closed` passed on the first time only; `reported` says whether it was. */
export interface EventsClosedOnce extends ConnectionEvents {
  readonly reported: boolean;
}

export function closedOnce(events: ConnectionEvents): EventsClosedOnce {
  let reported = false;
  return {
    // Bound, not wrapped: a message takes no extra frame of ours on its way up.
    message: events.message.bind(events),
    requestFailed: events.requestFailed.bind(events),
    waitingForUser: (waiting: boolean) => events.waitingForUser?.(waiting),
    closed: (ending: ConnectionEnding) => {
      if (reported) return;
      reported = true;
      events.closed(ending);
    },
    get reported() {
      return reported;
    },
  };
}
