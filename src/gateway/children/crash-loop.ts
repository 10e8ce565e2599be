/**
 * Whether the pool's children are crash-looping: several exits within a window, each before the
 * child answered its probe. A child that served and then died is a crash, not a loop; a child
 * that cannot even say who it is, again and again, means the replica cannot serve, and its
 * readiness says so until a child answers.
 */

export interface CrashLoopOptions {
  /** Exits before the probe that make a loop. @default 3 */
  exits?: number;
  /** Within this many ms. @default 60_000 */
  windowMs?: number;
}

export const DEFAULT_CRASH_LOOP = Object.freeze({ exits: 3, windowMs: 60_000 });

export class CrashLoopWatch {
  private readonly exits: number;
  private readonly windowMs: number;
  private times: number[] = [];

  constructor(options: CrashLoopOptions = {}, private readonly now: () => number = () => performance.now()) {
    this.exits = options.exits ?? DEFAULT_CRASH_LOOP.exits;
    this.windowMs = options.windowMs ?? DEFAULT_CRASH_LOOP.windowMs;
  }

  /** A child exited before it answered its probe; true when that makes a loop. */
  unprobedExit(): boolean {
    const now = this.now();
    this.times = this.times.filter((time) => now - time < this.windowMs);
    this.times.push(now);
    return this.looping;
  }

  /** A child answered its probe: the loop, if any, is over. */
  probed(): void {
    this.times = [];
  }

  get looping(): boolean {
    return this.times.length >= this.exits;
  }
}
