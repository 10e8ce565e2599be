/**
 * The process-level wiring of the drain, for `mcpwire gateway`: the first SIGTERM starts it; a
 * second SIGTERM, or a SIGINT at any time (Ctrl-C at a terminal), hurries it (no more waits; the
 * children are still closed, so nothing is left running); a signal after that exits at once.
 * `exitCode` resolves when the drain is done: 0 after a drain that waited as it should, else the
 * shell's code for the signal that hurried it (130 for SIGINT, 143 for SIGTERM).
 */
import type { Drain } from "./drain.js";

export type ShutdownSignal = "SIGTERM" | "SIGINT";

export const SHUTDOWN_SIGNALS: readonly ShutdownSignal[] = ["SIGTERM", "SIGINT"];

const SIGNAL_EXIT_CODES: Readonly<Record<ShutdownSignal, number>> = { SIGINT: 130, SIGTERM: 143 };

/** Where signals come from, and how to leave without waiting. */
export interface ShutdownSignalOptions {
  /** @default process */
  source?: { on(event: ShutdownSignal, listener: () => void): unknown; off(event: ShutdownSignal, listener: () => void): unknown };
  /** Called for a signal that comes while the drain already hurries. @default process.exit */
  exit?: (code: number) => void;
}

export interface ShutdownWiring {
  /** Resolves with the exit code once the drain is done. */
  readonly exitCode: Promise<number>;
  /** Removes the signal listeners. Idempotent. */
  dispose(): void;
}

export function onShutdownSignals(drain: Pick<Drain, "start" | "hurry">, options: ShutdownSignalOptions = {}): ShutdownWiring {
  const source = options.source ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let resolveExit!: (code: number) => void;
  const exitCode = new Promise<number>((resolve) => (resolveExit = resolve));
  let hurriedBy: ShutdownSignal | undefined;
  let started = false;
  let finished = false;

  const finish = (result: { hurried: boolean }) => {
    finished = true;
    resolveExit(result.hurried && hurriedBy !== undefined ? SIGNAL_EXIT_CODES[hurriedBy] : 0);
  };

  const handlers = new Map<ShutdownSignal, () => void>();
  for (const name of SHUTDOWN_SIGNALS) {
    const handler = () => {
      if (finished) return;
      if (hurriedBy !== undefined) return exit(SIGNAL_EXIT_CODES[name]);
      if (name === "SIGTERM" && !started) {
        started = true;
        void drain.start().then(finish);
        return;
      }
      hurriedBy = name;
      started = true;
      void drain.hurry().then(finish);
    };
    handlers.set(name, handler);
    source.on(name, handler);
  }

  return {
    exitCode,
    dispose() {
      for (const [name, handler] of handlers) source.off(name, handler);
      handlers.clear();
    },
  };
}
