/**
 * What a request forwarded to a legacy session's child carries in its plan (forward.ts), the same
 * for a request POSTed alone (post-handler.ts) and for each request of a batch (post-batch.ts).
 */
import { isRequest } from "../../protocol/jsonrpc.js";
import type { LegacySession } from "../sessions/legacy-session.js";
import type { SessionChild } from "../sessions/session-child.js";
import type { ForwardPlan } from "./forward.js";
import type { FrontContext } from "./front-context.js";

/** The session's fields of a request's plan; the caller counts the request in `session.inFlight` before it is forwarded. */
export function sessionForwardPlan(context: FrontContext, session: LegacySession, child: SessionChild): Partial<ForwardPlan> & Pick<ForwardPlan, "relay"> {
  return {
    sessionId: session.id,
    outlivesCaller: true,
    relay: async () => child,
    // A request of the child that the caller's JSON reply cannot carry goes to the GET stream.
    undeliverable: (m) => {
      if (isRequest(m)) session.unsolicited(m);
    },
    finished: () => {
      session.inFlight--;
      context.sessions.touch(session);
    },
    childPid: () => child.pid,
  };
}
