/**
 * What a test opens and must close (clients, servers, fixtures): `own(thing)` keeps it and returns
 * it, and after each test everything kept is closed, the last opened first, whether the test
 * passed or not. A close that fails fails no test: the test's own checks say what mattered, and
 * one close failing still leaves the others to run.
 */
import { afterEach } from "vitest";

export interface Closable {
  close(): Promise<unknown>;
}

/**
 * Registers the afterEach that closes what was kept, for the file or describe block it is called
 * in, with vitest's hook timeout unless `timeoutMs` is given; returns `own`.
 */
export function closedAfterEach(timeoutMs?: number): <T extends Closable>(thing: T) => T {
  const owned: Closable[] = [];
  afterEach(async () => {
    await Promise.allSettled(owned.splice(0).reverse().map((thing) => thing.close()));
  }, timeoutMs);
  return (thing) => {
    owned.push(thing);
    return thing;
  };
}
