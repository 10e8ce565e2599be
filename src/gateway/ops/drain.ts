/**
 * The shutdown of a gateway replica (SIGTERM, or the gateway's `close()`), over hooks the front
 * gives, in this order:
 *
 * 1. `/readyz` fails at once (the readiness starts draining), so the load balancer stops sending.
 * 2. For `drainDelayMs` requests are still served: endpoints take that long to drop the replica,
 *    and a caller routed here meanwhile should not be refused.
 * 3. New requests get 503 (`hooks.refuseNewRequests`).
 * 4. Requests in flight get `drainMs` to finish (`hooks.whenIdle`); those still running then are
 *    failed with an UNAVAILABLE error (`hooks.failInFlight`): the caller gets an answer, never a
 *    cut connection.
 * 5. The front stops listening (`hooks.closeFront`), then every child is closed
 *    (`hooks.closeChildren`: stdin EOF, SIGTERM, SIGKILL to its group). The drain resolves when
 *    they are all gone.
 *
 * `hurry()` (a second signal) skips what is left to wait: the delay, the in-flight grace (those
 * still running are failed at once), and it aborts the signal the closing hooks hold, so the
 * children's ladder goes straight on without its waits. Nothing is left running either way.
 */
import { McpTransportError } from "../../errors.js";
import { checkWholeNumber } from "../../util/whole-number.js";
import { GATEWAY_DEFAULTS } from "../gateway-options.js";
import { refuseUnknownOptions } from "./option-check.js";
import type { Readiness } from "./readiness.js";
import type { GatewayTelemetry } from "./telemetry.js";

/** What the front does for the drain; each is called at most once, in the order listed. */
export interface DrainHooks {
  /** From now on, new requests get 503 (rejection cause `draining`). */
  refuseNewRequests(): void;
  /** Resolves once no request is in flight (at once if none is). */
  whenIdle(): Promise<void>;
  /** Fails every request still in flight with `error`, answered to its caller; returns how many. */
  failInFlight(error: McpTransportError): number;
  /**
   * Stops listening and ends the front's connections once their answers are written; resolves
   * when none is left. `hurry` aborts when the drain is told not to wait: end them now.
   */
  closeFront?(hurry: AbortSignal): Promise<void>;
  /**
   * Closes every child (stdin EOF, SIGTERM, SIGKILL to its process group) and resolves when all
   * have exited. `hurry` aborts when the drain is told not to wait: skip the ladder's waits.
   */
  closeChildren(hurry: AbortSignal): Promise<void>;
}

export interface DrainOptions {
  readiness: Readiness;
  hooks: DrainHooks;
  /** ms during which requests are still served after the drain began. @default 5000 */
  drainDelayMs?: number;
  /** ms in-flight requests get after the delay, before they are failed. @default 30_000 */
  drainMs?: number;
  /** ms the children's close may take before the drain hurries it (straight to SIGKILL). @default 15_000 */
  childCloseMs?: number;
  /** Where the drain's steps are noted (`drain_started`, ..., `drain_done`). */
  telemetry?: Pick<GatewayTelemetry, "note">;
}

const OPTION_NAMES = new Set(["readiness", "hooks", "drainDelayMs", "drainMs", "childCloseMs", "telemetry"]);

/** How long the children's close ladder may take before the drain skips its waits, in ms. */
export const DEFAULT_CHILD_CLOSE_MS = 15_000;

/** Where the drain is: each phase follows the one before, `done` last. */
export type DrainPhase = "serving" | "delay" | "refusing" | "closing" | "done";

export interface DrainResult {
  /** True when `hurry()` cut a wait short. */
  readonly hurried: boolean;
  /** In-flight requests failed because they did not finish in time. */
  readonly failedRequests: number;
}

export class Drain {
  private currentPhase: DrainPhase = "serving";
  private running: Promise<DrainResult> | undefined;
  private readonly hurrying = new AbortController();
  private readonly listeners = new Set<(phase: DrainPhase) => void>();
  private readonly drainDelayMs: number;
  private readonly drainMs: number;
  private readonly childCloseMs: number;

  constructor(private readonly options: DrainOptions) {
    refuseUnknownOptions(options, OPTION_NAMES, "Drain");
    this.drainDelayMs = checkWholeNumber(options.drainDelayMs ?? GATEWAY_DEFAULTS.drainDelayMs, "drainDelayMs", "Drain", {
      min: 0,
      defaultValue: GATEWAY_DEFAULTS.drainDelayMs,
    });
    this.drainMs = checkWholeNumber(options.drainMs ?? GATEWAY_DEFAULTS.drainMs, "drainMs", "Drain", {
      min: 0,
      defaultValue: GATEWAY_DEFAULTS.drainMs,
    });
    this.childCloseMs = checkWholeNumber(options.childCloseMs ?? DEFAULT_CHILD_CLOSE_MS, "childCloseMs", "Drain", {
      min: 0,
      defaultValue: DEFAULT_CHILD_CLOSE_MS,
    });
  }

  get phase(): DrainPhase {
    return this.currentPhase;
  }

  /** Whether `hurry()` was called. */
  get hurried(): boolean {
    return this.hurrying.signal.aborted;
  }

  /** Calls `listener` on each phase entered; returns the function that stops it. */
  onPhase(listener: (phase: DrainPhase) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Begins the drain; later calls return the same promise. Never rejects. */
  start(): Promise<DrainResult> {
    this.running ??= this.run();
    return this.running;
  }

  /** Skips the waits left (begins the drain if it has not begun); resolves as `start()` does. A no-op once done. */
  hurry(): Promise<DrainResult> {
    if (!this.hurrying.signal.aborted && this.currentPhase !== "done") {
      this.hurrying.abort();
      this.note("drain_hurried");
    }
    return this.start();
  }

  private async run(): Promise<DrainResult> {
    const { hooks, readiness } = this.options;
    const hurry = this.hurrying.signal;

    readiness.startDraining();
    this.enter("delay");
    this.note("drain_started", { drainDelayMs: this.drainDelayMs, drainMs: this.drainMs });
    await waitUnless(this.drainDelayMs, hurry);

    this.enter("refusing");
    this.note("drain_refusing");
    await settled(() => hooks.refuseNewRequests());
    const finished = await raceWithin(settledPromise(() => hooks.whenIdle()), this.drainMs, hurry);

    let failedRequests = 0;
    if (!finished) {
      const error = hurry.aborted
        ? new McpTransportError("UNAVAILABLE", "the gateway was told to stop at once; the request was not finished")
        : new McpTransportError("UNAVAILABLE", `the gateway is shutting down; the request did not finish within ${this.drainMs} ms`, {
            timeoutMs: this.drainMs,
          });
      failedRequests = (await settled(() => hooks.failInFlight(error))) ?? 0;
      this.note("drain_in_flight_failed", { count: failedRequests });
    }

    this.enter("closing");
    this.note("drain_closing");
    if (hooks.closeFront !== undefined) await settled(() => hooks.closeFront!(hurry));
    // The ladder has its own deadlines; past childCloseMs the drain tells it to skip them.
    const closing = new AbortController();
    const skipWaits = () => closing.abort();
    const escalate = setTimeout(skipWaits, this.childCloseMs);
    if (hurry.aborted) skipWaits();
    else hurry.addEventListener("abort", skipWaits, { once: true });
    try {
      await settled(() => hooks.closeChildren(closing.signal));
    } finally {
      clearTimeout(escalate);
      hurry.removeEventListener("abort", skipWaits);
    }

    const result = { hurried: hurry.aborted, failedRequests };
    this.enter("done");
    this.note("drain_done", { hurried: result.hurried, failedRequests });
    return result;
  }

  private enter(phase: DrainPhase): void {
    this.currentPhase = phase;
    for (const listener of [...this.listeners]) {
      try {
        listener(phase);
      } catch {
        // The drain goes on whatever a listener does.
      }
    }
  }

  private note(event: string, fields?: Record<string, string | number | boolean>): void {
    try {
      this.options.telemetry?.note(event, fields);
    } catch {
      // The drain goes on whatever the log does.
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (already, or meanwhile). */
function waitUnless(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * True when `promise` settles within `ms` and before `signal` aborts; false otherwise. With no
 * time to wait (0 ms, or already hurried), a promise that is already settled still counts: the
 * answer is decided after the current turn's callbacks, never by a timer.
 */
function raceWithin(promise: Promise<unknown>, ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    let decided = false;
    const finish = (won: boolean) => {
      if (decided) return;
      decided = true;
      clearTimeout(timer);
      if (immediate !== undefined) clearImmediate(immediate);
      signal.removeEventListener("abort", lose);
      resolve(won);
    };
    const lose = () => finish(false);
    // Both callbacks below run in a later turn than this executor, after the handles are set.
    void promise.then(
      () => finish(true),
      () => finish(true),
    );
    const noWait = signal.aborted || ms === 0;
    const immediate = noWait ? setImmediate(lose) : undefined;
    const timer = noWait ? undefined : setTimeout(lose, ms);
    if (!noWait) signal.addEventListener("abort", lose, { once: true });
  });
}

/** A hook's result, with a throw or a rejection taken as no result: one hook failing never stops the drain. */
async function settled<T>(hook: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await hook();
  } catch {
    return undefined;
  }
}

/** A hook's promise that always resolves. */
function settledPromise(hook: () => Promise<void>): Promise<void> {
  return settled(hook).then(() => undefined);
}
