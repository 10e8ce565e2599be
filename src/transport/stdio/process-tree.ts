/**
 * A child process and everything it starts, as one thing to stop.
 *
 * `npx` starts `sh` which starts `node`; stopping only the direct child would leave the server
 * running. So on POSIX the child is spawned as the leader of a new process group and the whole
 * group is signalled; on Windows the tree is ended with `taskkill /T /F`.
 *
 * Stopping follows the ladder the MCP specification describes for stdio (basic/lifecycle,
 * "Shutdown"): close the child's stdin, wait; SIGTERM, wait; SIGKILL, wait. A step is skipped
 * as soon as nothing of the group is left. And if this process exits while children run, they
 * are killed on the way out.
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { spawn as spawnPlain, spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import type crossSpawnModule from "cross-spawn";

/**
 * How long a child has to exit by itself once its stdin is closed. Closing stdin is the one
 * portable way to ask a server to stop, and well-behaved servers exit within milliseconds.
 * @default 2_000 ms
 */
export const DEFAULT_STDIN_CLOSE_GRACE_MS = 2_000;
/**
 * How long the group has after SIGTERM before SIGKILL: room for a server to flush and exit.
 * @default 5_000 ms (the figure the requirement documents give)
 */
export const DEFAULT_TERMINATE_GRACE_MS = 5_000;
/**
 * How long to wait after SIGKILL, which cannot be ignored: only a process stuck in the kernel
 * (uninterruptible I/O) takes longer, and then we stop waiting rather than hang the caller.
 */
export const KILL_WAIT_MS = 5_000;
/**
 * How often to look whether grandchildren are still alive once the direct child has exited (no
 * event tells us). Short enough not to delay close(), long enough to cost nothing.
 */
export const GROUP_POLL_INTERVAL_MS = 25;

const IS_WINDOWS = process.platform === "win32";

/** How the direct child ended. */
export interface ProcessExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** The waits of the stop ladder, in ms (0 skips the wait and goes to the next step). */
export interface StopTimings {
  /** @default DEFAULT_STDIN_CLOSE_GRACE_MS */
  stdinCloseGraceMs: number;
  /** @default DEFAULT_TERMINATE_GRACE_MS */
  terminateGraceMs: number;
}

export interface SpawnTreeOptions {
  cwd?: string;
  env: Record<string, string>;
}

/**
 * `cross-spawn`, on Windows only, loaded when the first child is spawned rather than when mcpwire
 * is imported. It finds `.cmd` shims such as `npx.cmd` and quotes arguments for `cmd.exe`; on
 * POSIX `node:child_process` given an argv already does all it would (it passes a POSIX argv
 * through unchanged), so loading it there would only delay the first spawn (about 12 ms, the
 * cold-start section of bench/RESULTS.md).
 */
let crossSpawn: typeof crossSpawnModule | undefined;

/** Loads what spawning needs on this platform: a promise on Windows, nothing to wait for elsewhere. */
export function loadSpawner(): Promise<void> | undefined {
  if (!IS_WINDOWS || crossSpawn) return undefined;
  return import("cross-spawn").then((module) => {
    crossSpawn = module.default;
  });
}

/**
 * Spawns `command` with `args` (never through a shell of ours), with three pipes, as the leader
 * of a new process group on POSIX. May throw synchronously (invalid arguments); a command that
 * cannot start emits 'error'. On Windows, `loadSpawner()` must have resolved first.
 */
export function spawnProcessTree(command: string, args: readonly string[], options: SpawnTreeOptions): ProcessTree {
  if (IS_WINDOWS && !crossSpawn) throw new Error("mcpwire: spawnProcessTree() before loadSpawner()");
  const spawnOptions: SpawnOptions = {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
    // POSIX: setsid(), so the child leads a group we can signal as a whole. (On Windows this
    // flag would open a console window instead, so it is not set there.)
    detached: !IS_WINDOWS,
    windowsHide: true,
    shell: false,
  };
  const spawn = crossSpawn ?? spawnPlain;
  return new ProcessTree(spawn(command, [...args], spawnOptions));
}

export class ProcessTree {
  private exit: ProcessExit | undefined;
  private stopping: Promise<ProcessExit | undefined> | undefined;
  /** Settles when the direct child has exited (or failed to start). */
  readonly exited: Promise<void>;

  constructor(readonly child: ChildProcess) {
    this.exited = new Promise<void>((resolve) => {
      child.once("exit", (exitCode, signal) => {
        this.exit = { exitCode, signal };
        resolve();
      });
      // A child that never started emits 'error' and may never emit 'exit'. The listener stays:
      // a later 'error' (a failed kill) must not become an unhandled one.
      child.on("error", () => {
        if (child.pid === undefined) resolve();
      });
    });
    if (child.pid !== undefined) liveTrees.add(this);
    updateExitHooks();
    void this.exited.then(() => {
      if (this.directExited && !this.groupAlive()) this.untrack();
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** How the direct child ended, once it did. */
  get exitStatus(): ProcessExit | undefined {
    return this.exit;
  }

  /** True once the direct child has exited or never started. */
  get directExited(): boolean {
    return this.exit !== undefined || this.child.pid === undefined;
  }

  /** True while the direct child or any process of its group is alive (zombies excepted). */
  isAlive(): boolean {
    return !this.directExited || this.groupAlive();
  }

  /**
   * Runs the stop ladder once (later calls share it) and resolves with how the direct child
   * ended, or undefined if it outlived even SIGKILL's wait. Never rejects, never hangs.
   */
  stop(timings: StopTimings): Promise<ProcessExit | undefined> {
    this.stopping ??= this.stopOnce(timings);
    return this.stopping;
  }

  /** Sends `signal` to the whole group (POSIX) or ends the tree (Windows); best-effort. */
  signalTree(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    if (IS_WINDOWS) {
      // Windows has no SIGTERM: any stop is TerminateProcess on the whole tree.
      if (this.directExited) return;
      const taskkill = spawnPlain("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore", windowsHide: true });
      taskkill.on("error", () => this.child.kill());
      return;
    }
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is gone already. EPERM cannot happen for a group we created.
    }
  }

  /** Kills the tree now, synchronously: the last thing done when this process exits. */
  killNow(): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    if (IS_WINDOWS) {
      if (!this.directExited) spawnSync("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore", windowsHide: true });
      return;
    }
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // The group is gone already.
    }
  }

  private async stopOnce(timings: StopTimings): Promise<ProcessExit | undefined> {
    try {
      // Step 1: closing stdin is the request to stop. Destroyed rather than ended: data still
      // queued for a child that stopped reading would otherwise hold the pipe open.
      this.child.stdin?.destroy();
      if (await this.waitGone(timings.stdinCloseGraceMs)) return this.exit;
      this.signalTree("SIGTERM");
      if (await this.waitGone(timings.terminateGraceMs)) return this.exit;
      this.signalTree("SIGKILL");
      await this.waitGone(KILL_WAIT_MS);
      return this.exit;
    } finally {
      this.untrack();
    }
  }

  /** Waits until nothing of the tree is alive, at most `ms`; true if it is gone. */
  private async waitGone(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (!this.isAlive()) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      if (this.directExited) {
        // No event tells when grandchildren exit: look again shortly.
        await new Promise((resolve) => setTimeout(resolve, Math.min(GROUP_POLL_INTERVAL_MS, left)));
        continue;
      }
      // The direct child's 'exit' event wakes us early.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        void this.exited.then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  private groupAlive(): boolean {
    const pid = this.child.pid;
    if (pid === undefined || IS_WINDOWS) return false;
    return processGroupAlive(pid);
  }

  private untrack(): void {
    if (liveTrees.delete(this)) updateExitHooks();
  }
}

/**
 * True while a process of group `pgid` is alive. A zombie (exited, not yet reaped) is not
 * alive: where init does not reap orphans (some containers), zombies stay for good.
 */
export function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return process.platform === "linux" ? linuxGroupHasLiveMember(pgid) : true;
}

function linuxGroupHasLiveMember(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true; // no /proc: trust kill(0), which said a member exists
  }
  for (const name of entries) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue; // it exited while we looked
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so parse after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}

// ---- Killing children when this process exits ----------------------------------------------

const liveTrees = new Set<ProcessTree>();
/** Signals whose default action ends this process; POSIX only (Windows ends without them). */
const ENDING_SIGNALS: readonly NodeJS.Signals[] = IS_WINDOWS ? [] : ["SIGINT", "SIGTERM", "SIGHUP"];
let hooksInstalled = false;
const signalHooked = new Set<NodeJS.Signals>();

function killAllNow(): void {
  for (const tree of liveTrees) tree.killNow();
  liveTrees.clear();
}

function onProcessExit(): void {
  killAllNow();
}

/**
 * On a signal nobody else handles, this process is about to die by it: kill the children, then
 * let the signal do what it would have done. Our listener runs first (prepended) and removes
 * itself, so a listener of someone else's that counts listeners sees the world without us.
 * If someone else handles the signal, they decide whether this process ends; if it does, the
 * 'exit' hook still kills the children.
 */
function onEndingSignal(signal: NodeJS.Signals): void {
  process.removeListener(signal, onEndingSignal);
  signalHooked.delete(signal);
  if (process.listenerCount(signal) > 0) return;
  killAllNow();
  // Removed outright, so the signal raised again below meets no listener of ours.
  updateExitHooks();
  for (const hooked of ENDING_SIGNALS) process.removeListener(hooked, onEndingSignal);
  signalHooked.clear();
  process.kill(process.pid, signal);
}

function updateExitHooks(): void {
  const wanted = liveTrees.size > 0;
  if (wanted && !hooksInstalled) {
    process.on("exit", onProcessExit);
    hooksInstalled = true;
  } else if (!wanted && hooksInstalled) {
    process.removeListener("exit", onProcessExit);
    hooksInstalled = false;
  }
  for (const signal of ENDING_SIGNALS) {
    if (wanted && !signalHooked.has(signal)) {
      process.prependListener(signal, onEndingSignal);
      signalHooked.add(signal);
    } else if (!wanted && signalHooked.has(signal)) {
      process.removeListener(signal, onEndingSignal);
      signalHooked.delete(signal);
    }
  }
}

/** Trees still tracked for killing on exit (for tests). */
export function trackedProcessTrees(): number {
  return liveTrees.size;
}
