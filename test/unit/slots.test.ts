import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { InFlightSlots, type SlotWaiter } from "../../src/session/slots.js";

interface Named extends SlotWaiter {
  name: string;
}

function waiter(log: string[], name: string): Named {
  return { name, reject: () => log.push(`rejected ${name}`) };
}

/** Slots whose grants are logged by the waiter's name. */
function loggedSlots(max: number, log: string[]): InFlightSlots<Named> {
  return new InFlightSlots<Named>(max, (granted) => log.push(`granted ${granted.name}`));
}

/** A full collection, from inside the test process (the flag can be set at run time). */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

describe("InFlightSlots", () => {
  it("grants slots in order, and a waiter that leaves is skipped", () => {
    const log: string[] = [];
    const slots = loggedSlots(1, log);
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
    const slots = loggedSlots(1, []);
    slots.acquire(waiter([], "holder"));
    let granted: WeakRef<Named> | undefined;
    (() => {
      // A large message, as a request's would be: what the line must not keep alive.
      const big = { name: "big", reject: () => undefined, payload: "x".repeat(1 << 20) };
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
    const slots = loggedSlots(1, log);
    slots.acquire(waiter(log, "holder"));
    slots.acquire(waiter(log, "a"));
    slots.acquire(waiter(log, "b"));
    slots.release(); // grants a
    slots.rejectAll(() => new Error("closed"));
    expect(log).toEqual(["granted a", "rejected b"]);
    expect(slots.waiting).toBe(0);
  });
});
