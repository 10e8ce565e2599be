/**
 * Whether this replica should get traffic, as `/readyz` answers it. Several sources feed it, each
 * by its own name: the pool (warmed and probed), capacity (not over its caps), the crash-loop
 * watch; the drain flips it off for good. The replica is ready when no source holds it back.
 * A source named in `waitFor` holds it back until it first reports, so a replica is never ready
 * before its pool has said so.
 */

export type ReadinessState = { readonly ready: true } | { readonly ready: false; readonly reason: string };

/** The sources the gateway feeds; others may be added by name. */
export type ReadinessSource = "pool" | "capacity" | "crash_loop" | (string & {});

/** What `follow` reads: a flag, and a way to hear of its changes. */
export interface ReadyFlag {
  readonly ready: boolean;
  onReadyChange(listener: (ready: boolean) => void): () => void;
}

export interface ReadinessOptions {
  /** Sources that must report ready once before the replica is. @default ["pool"] */
  waitFor?: readonly ReadinessSource[];
}

/** The longest reason kept: `/readyz` answers a short plain-text line, never a story. */
const MAX_REASON = 120;

export class Readiness {
  /** The sources holding the replica back, by name, with their reason, in the order they began to. */
  private readonly blocked = new Map<string, string>();
  private isDraining = false;
  private readonly listeners = new Set<(state: ReadinessState) => void>();

  constructor(options: ReadinessOptions = {}) {
    for (const source of options.waitFor ?? ["pool"]) this.blocked.set(source, `${source}: not reported yet`);
  }

  /**
   * A source says whether it lets the replica be ready; when not, `reason` says why in a few
   * plain words ("pool: no child answered the probe").
   */
  report(source: ReadinessSource, ready: boolean, reason = "not ready"): void {
    const before = this.state();
    if (ready) this.blocked.delete(source);
    else this.blocked.set(source, `${source}: ${plainLine(reason)}`);
    this.changed(before);
  }

  /**
   * Follows a source that has a ready flag and tells of its changes (the children's pool:
   * `ready`, `onReadyChange`): reports it now and at each change, with `reason()` saying why
   * when it is not ready. Returns the function that stops following.
   */
  follow(source: ReadinessSource, flag: ReadyFlag, reason: () => string = () => "not ready"): () => void {
    const report = (ready: boolean) => this.report(source, ready, ready ? undefined : reason());
    report(flag.ready);
    return flag.onReadyChange(report);
  }

  /** The drain began: not ready from now on, whatever the sources say. One way. */
  startDraining(): void {
    if (this.isDraining) return;
    const before = this.state();
    this.isDraining = true;
    this.changed(before);
  }

  get draining(): boolean {
    return this.isDraining;
  }

  state(): ReadinessState {
    if (this.isDraining) return { ready: false, reason: "draining" };
    const first = this.blocked.values().next();
    return first.done ? { ready: true } : { ready: false, reason: first.value };
  }

  /** Calls `listener` with each new state; returns the function that stops it. */
  onChange(listener: (state: ReadinessState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(before: ReadinessState): void {
    const after = this.state();
    if (describe(before) === describe(after)) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(after);
      } catch {
        // A listener's failure is its own: the state has changed all the same.
      }
    }
  }
}

function describe(state: ReadinessState): string {
  return state.ready ? "ready" : `not ready: ${state.reason}`;
}

/** One short line: control characters out, cut at MAX_REASON. */
function plainLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  const line = String(text).replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return line.length <= MAX_REASON ? line : `${line.slice(0, MAX_REASON)}…`;
}
