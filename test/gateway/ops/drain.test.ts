/**
 * The drain after SIGTERM, over hooks that play the front: the order of its steps is read from
 * what the hooks record and from the drain's phase events, never from the wall clock. Delays are
 * real timers; where a test must not wait for one, the delay is ten minutes, so a drain that
 * waited for it would fail the test by its timeout.
 */
import { describe, expect, it } from "vitest";
import { McpTransportError } from "../../../src/errors.js";
import { Drain, type DrainHooks, type DrainOptions, type DrainPhase } from "../../../src/gateway/ops/drain.js";
import { Readiness } from "../../../src/gateway/ops/readiness.js";

const LONG = 600_000;

/** A front reduced to what the drain sees: requests in flight, accepting or not, and its children. */
class PlayFront {
  readonly order: string[] = [];
  accepting = true;
  readonly failures: McpTransportError[] = [];
  childrenSignal: AbortSignal | undefined;
  private readonly running = new Map<number, (outcome: string) => void>();
  private idleWaiters: (() => void)[] = [];
  private nextId = 0;
  /** When set, closeChildren waits until its signal aborts (a child ignoring its ladder's first steps). */
  childrenWaitForHurry = false;

  /** A request arriving: refused once the front refuses, else in flight until `finish(id)`. */
  arrive(): { accepted: boolean; id: number; outcome: Promise<string> } {
    const id = this.nextId++;
    if (!this.accepting) {
      this.order.push(`refused ${id}`);
      return { accepted: false, id, outcome: Promise.resolve("503") };
    }
    this.order.push(`served ${id}`);
    const outcome = new Promise<string>((resolve) => this.running.set(id, resolve));
    return { accepted: true, id, outcome };
  }

  finish(id: number): void {
    this.running.get(id)?.("ok");
    this.running.delete(id);
    this.order.push(`finished ${id}`);
    this.checkIdle();
  }

  readonly hooks: DrainHooks = {
    refuseNewRequests: () => {
      this.order.push("refuseNewRequests");
      this.accepting = false;
    },
    whenIdle: () => {
      this.order.push("whenIdle");
      return new Promise((resolve) => {
        this.idleWaiters.push(resolve);
        this.checkIdle();
      });
    },
    failInFlight: (error) => {
      this.order.push("failInFlight");
      this.failures.push(error);
      const count = this.running.size;
      for (const [id, resolve] of this.running) {
        resolve("failed");
        this.order.push(`failed ${id}`);
      }
      this.running.clear();
      return count;
    },
    closeFront: async () => {
      this.order.push("closeFront");
    },
    closeChildren: async (hurry) => {
      this.order.push("closeChildren");
      this.childrenSignal = hurry;
      if (this.childrenWaitForHurry && !hurry.aborted) {
        await new Promise((resolve) => hurry.addEventListener("abort", resolve, { once: true }));
      }
      // The children take a few turns of the loop to exit: a drain that did not wait would end first.
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
      this.order.push("children gone");
    },
  };

  private checkIdle(): void {
    if (this.running.size > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

function drainOf(front: PlayFront, options: Partial<DrainOptions> = {}) {
  const readiness = new Readiness({ waitFor: [] });
  const notes: string[] = [];
  const drain = new Drain({ readiness, hooks: front.hooks, telemetry: { note: (event) => notes.push(event) }, ...options });
  const phases: DrainPhase[] = [];
  drain.onPhase((phase) => {
    phases.push(phase);
    front.order.push(`phase ${phase}`);
  });
  return { drain, readiness, notes, phases };
}

function phaseReached(drain: Drain, phase: DrainPhase): Promise<void> {
  return new Promise((resolve) => {
    if (drain.phase === phase) return resolve();
    const stop = drain.onPhase((entered) => {
      if (entered === phase) {
        stop();
        resolve();
      }
    });
  });
}

describe("the drain", () => {
  it("fails readiness at once, serves during the delay, then refuses, then closes the front and the children, in that order", async () => {
    const front = new PlayFront();
    const { drain, readiness, notes } = drainOf(front, { drainDelayMs: 50, drainMs: LONG });
    expect(readiness.state().ready).toBe(true);
    const done = drain.start();
    expect(readiness.state()).toEqual({ ready: false, reason: "draining" }); // at once, before any wait
    const duringDelay = front.arrive();
    expect(duringDelay.accepted).toBe(true);
    front.finish(duringDelay.id);
    await phaseReached(drain, "refusing");
    expect(front.arrive().accepted).toBe(false);
    const result = await done;
    expect(result).toEqual({ hurried: false, failedRequests: 0 });
    expect(front.order.indexOf("refused 1")).toBeGreaterThan(front.order.indexOf("refuseNewRequests"));
    expect(front.order.filter((step) => step !== "refused 1")).toEqual([
      "phase delay",
      "served 0",
      "finished 0",
      "phase refusing",
      "refuseNewRequests",
      "whenIdle",
      "phase closing",
      "closeFront",
      "closeChildren",
      "children gone",
      "phase done",
    ]);
    expect(notes).toEqual(["drain_started", "drain_refusing", "drain_closing", "drain_done"]);
    expect(front.childrenSignal!.aborted).toBe(false); // the ladder ran with its waits
  });

  it("lets in-flight requests that finish within drainMs succeed, and closes the children only after them", async () => {
    const front = new PlayFront();
    const { drain } = drainOf(front, { drainDelayMs: 0, drainMs: LONG });
    const first = front.arrive();
    const second = front.arrive();
    const done = drain.start();
    await phaseReached(drain, "refusing");
    front.finish(first.id);
    expect(drain.phase).toBe("refusing"); // one is still in flight
    front.finish(second.id);
    expect(await done).toEqual({ hurried: false, failedRequests: 0 });
    expect(await first.outcome).toBe("ok");
    expect(await second.outcome).toBe("ok");
    expect(front.order).not.toContain("failInFlight");
    expect(front.order.indexOf("finished 1")).toBeLessThan(front.order.indexOf("closeChildren"));
  });

  it("fails the requests still in flight after drainMs with UNAVAILABLE, then closes the children", async () => {
    const front = new PlayFront();
    const { drain, notes } = drainOf(front, { drainDelayMs: 0, drainMs: 30 });
    const stuck = front.arrive();
    const result = await drain.start();
    expect(result).toEqual({ hurried: false, failedRequests: 1 });
    expect(await stuck.outcome).toBe("failed");
    const [error] = front.failures;
    expect(error).toBeInstanceOf(McpTransportError);
    expect(error).toMatchObject({ reason: "UNAVAILABLE", timeoutMs: 30, message: "the gateway is shutting down; the request did not finish within 30 ms" });
    expect(front.order.slice(front.order.indexOf("whenIdle"))).toEqual([
      "whenIdle",
      "failInFlight",
      "failed 0",
      "phase closing",
      "closeFront",
      "closeChildren",
      "children gone",
      "phase done",
    ]);
    expect(notes).toContain("drain_in_flight_failed");
  });

  it("skips the waits left on a second signal: the delay, the in-flight grace, the children's ladder", async () => {
    const front = new PlayFront();
    front.childrenWaitForHurry = true;
    const { drain } = drainOf(front, { drainDelayMs: LONG, drainMs: LONG, childCloseMs: LONG });
    const stuck = front.arrive();
    const done = drain.start();
    await phaseReached(drain, "delay");
    const hurried = drain.hurry();
    expect(hurried).toBe(done); // the same drain, hurried
    const result = await done;
    expect(result).toEqual({ hurried: true, failedRequests: 1 });
    expect(await stuck.outcome).toBe("failed");
    expect(front.failures[0]).toMatchObject({ reason: "UNAVAILABLE", message: "the gateway was told to stop at once; the request was not finished" });
    expect(front.childrenSignal!.aborted).toBe(true);
    expect(front.order.at(-1)).toBe("phase done");
    expect(front.order).toContain("children gone");
  });

  it("hurries the children's close when the second signal comes while they close", async () => {
    const front = new PlayFront();
    front.childrenWaitForHurry = true;
    const { drain } = drainOf(front, { drainDelayMs: 0, drainMs: LONG, childCloseMs: LONG });
    const done = drain.start();
    await phaseReached(drain, "closing");
    await new Promise((resolve) => setImmediate(resolve)); // closeChildren has been called
    expect(front.order).toContain("closeChildren");
    expect(front.order).not.toContain("children gone");
    void drain.hurry();
    expect(await done).toEqual({ hurried: true, failedRequests: 0 });
    expect(front.order.slice(-2)).toEqual(["children gone", "phase done"]);
  });

  it("tells the children's close to skip its waits after childCloseMs, without counting as hurried", async () => {
    const front = new PlayFront();
    front.childrenWaitForHurry = true;
    const { drain } = drainOf(front, { drainDelayMs: 0, drainMs: LONG, childCloseMs: 20 });
    expect(await drain.start()).toEqual({ hurried: false, failedRequests: 0 });
    expect(front.childrenSignal!.aborted).toBe(true);
  });

  it("goes on to the children when a hook throws or rejects", async () => {
    const order: string[] = [];
    const hooks: DrainHooks = {
      refuseNewRequests: () => {
        order.push("refuse");
        throw new Error("boom");
      },
      whenIdle: () => Promise.reject(new Error("boom")),
      failInFlight: () => {
        throw new Error("boom");
      },
      closeFront: () => Promise.reject(new Error("boom")),
      closeChildren: async () => {
        order.push("children");
      },
    };
    const drain = new Drain({
      readiness: new Readiness(),
      hooks,
      drainDelayMs: 0,
      drainMs: 0,
      telemetry: {
        note: () => {
          throw new Error("log down");
        },
      },
    });
    drain.onPhase(() => {
      throw new Error("listener broken");
    });
    expect(await drain.start()).toEqual({ hurried: false, failedRequests: 0 });
    expect(order).toEqual(["refuse", "children"]);
    expect(drain.phase).toBe("done");
  });

  it("runs once: start() again and hurry() after the end return the same result and call no hook twice", async () => {
    const front = new PlayFront();
    const { drain } = drainOf(front, { drainDelayMs: 0, drainMs: 0 });
    const first = drain.start();
    expect(drain.start()).toBe(first);
    await first;
    expect(drain.hurry()).toBe(first);
    expect(drain.hurried).toBe(false); // nothing was left to skip
    expect(front.order.filter((step) => step === "closeChildren")).toHaveLength(1);
    expect(drain.phase).toBe("done");
  });

  it("counts a front already idle as finished even with no time to wait", async () => {
    const front = new PlayFront();
    const { drain } = drainOf(front, { drainDelayMs: 0, drainMs: 0 });
    expect(await drain.start()).toEqual({ hurried: false, failedRequests: 0 });
    expect(front.order).not.toContain("failInFlight");
  });

  it("refuses bad durations and unknown options", () => {
    const front = new PlayFront();
    const readiness = new Readiness();
    expect(() => new Drain({ readiness, hooks: front.hooks, drainMs: -1 })).toThrow(/"drainMs" must be a whole number of ms/);
    expect(() => new Drain({ readiness, hooks: front.hooks, drainDelayMs: 1.5 })).toThrow(/"drainDelayMs"/);
    expect(() => new Drain({ readiness, hooks: front.hooks, drainMS: 5 } as never)).toThrow(/unknown option "drainMS" \(did you mean "drainMs"\?\)/);
  });
});
