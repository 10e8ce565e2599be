/**
 * The deadline of the `notifications/cancelled` POST that the HTTP wires send when a caller gives
 * up (`SendContext.bestEffort`). Nobody waits for that notice, so nothing but its own deadline
 * ends it: a server that never answers it would otherwise hold the request, and one of the
 * client's connections to the endpoint, until `close()`. The go-sdk caps it the same way.
 */

/**
 * How long the cancel notice's POST may take, in ms; past it the POST is aborted and the notice
 * dropped. It is best-effort: the server may never hear it, as with any lost notification.
 * @default 5_000
 */
export const CANCEL_NOTICE_TIMEOUT_MS = 5_000;

/** The cap in force: CANCEL_NOTICE_TIMEOUT_MS unless a test shortened it (`setCancelNoticeTimeoutForTests`). */
let noticeTimeoutMs = CANCEL_NOTICE_TIMEOUT_MS;

/** The cancel notice's cap in force, in ms: CANCEL_NOTICE_TIMEOUT_MS outside tests. */
export function cancelNoticeTimeoutMs(): number {
  return noticeTimeoutMs;
}

/**
 * For tests only, so that a test of the cap does not wait out 5 s: sets the cap of every cancel
 * notice sent from now on and returns what puts the previous one back. Not an option and not
 * exported from the package: the cap is the library's, as the go-sdk's is.
 */
export function setCancelNoticeTimeoutForTests(ms: number): () => void {
  const before = noticeTimeoutMs;
  noticeTimeoutMs = ms;
  return () => {
    noticeTimeoutMs = before;
  };
}

/** Calls `onExpire` after `ms` (the cap in force unless a shorter bound applies), unless cleared first. */
export function cancelNoticeDeadline(onExpire: () => void, ms = noticeTimeoutMs): { clear(): void } {
  const timer = setTimeout(onExpire, ms);
  // Nobody waits for the notice: its timer alone keeps no process alive.
  timer.unref();
  return { clear: () => clearTimeout(timer) };
}
