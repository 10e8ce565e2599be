import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { InFlightSlots, type SlotWaiter } from "../../src/session/slots.js";

function waiter(log: string[], name: string): SlotWaiter {
  return { grant: () => log.push(`granted ${name}`), reject: () => log.push(`rejected ${name}`) };
}

/** A full collection, from inside the test process (the flag can be set at run time). */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

describe("InFlightSlots", () => {
  it("grants slots in order, and a waiter that leaves is skipped", () => {
    const log: string[] = [];
    const slots = new InFlightSlots(1);
    expect(slots.acquire(waiter(log, "first"))).toBe(true);
    const second = waiter(log, "second");
    const third = waiter(log, "third");
    expect(slots.acquire(second)).toBe(false);
    expect(slots.acquire(third)).toBe(false);
    expect(slots.leave(second)).toBe(true);
    slots.release();
    expect(log).toEqual(["granted third"]);
    expect(slots.waiting).toBe(0);
    expect(slots.inFlight).toBe(1);
  });

  it("keeps no reference to a waiter once it is granted", async () => {
    const slots = new InFlightSlots(1);
    slots.acquire(waiter([], "holder"));
    let granted: WeakRef<SlotWaiter> | undefined;
    (() => {
      // A large message, as a request's would be: what the line must not keep alive.
      const big = { grant: () => undefined, reject: () => undefined, payload: "x".repeat(1 << 20) };
      granted = new WeakRef(big);
      slots.acquire(big);
    })();
    slots.acquire(waiter([], "behind")); // the line is not emptied: the granted one sits before head
    slots.release();
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(granted!.deref()).toBeUndefined();
  });

  it("rejects every waiter still in line when the connection ends", () => {
    const log: string[] = [];
    const slots = new InFlightSlots(1);
    slots.acquire(waiter(log, "holder"));
    slots.acquire(waiter(log, "a"));
    slots.acquire(waiter(log, "b"));
    slots.release(); // grants a
    slots.rejectAll(() => new Error("closed"));
    expect(log).toEqual(["granted a", "rejected b"]);
    expect(slots.waiting).toBe(0);
  });
});
