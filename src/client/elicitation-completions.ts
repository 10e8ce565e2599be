/**
 * `notifications/elicitation/complete` (client/elicitation, revision 2025-11-25): the server says
 * that the out-of-band part of a URL elicitation is done. One tracker per client, across its
 * reconnections: it knows the elicitation ids it handed to a URL handler, settles each one's
 * `completed` promise once, and tells the client's listeners. A notification naming an id it
 * never handed out, or one already completed, is ignored, as the specification requires.
 */
import { abortReason } from "../util/abort.js";

/**
 * The most elicitations waiting for their completion at once. A server could name ids without
 * end; past this many, the oldest is forgotten (its `completed` never resolves; a handler still
 * waiting on it has its signal and the user's own word).
 */
export const MAX_PENDING_COMPLETIONS = 256;

/** What a listener of `McpClient.onElicitationComplete` receives. */
export interface ElicitationCompletion {
  /** The id the server gave the elicitation, in `elicitation/create` or a -32042 error. */
  elicitationId: string;
}

interface Waiting {
  promise: Promise<void>;
  resolve(): void;
}

export class ElicitationCompletions {
  private readonly waiting = new Map<string, Waiting>();
  private readonly listeners = new Set<(completion: ElicitationCompletion) => void>();
  /**
   * Ids completed before anyone expected them, kept until the current turn of the event loop
   * ends. A request and its completion read together (one chunk of a pipe) reach the client in
   * that order, but a handler starts a microtask later than a notification is routed: this puts
   * them back in the order they came. An id still unknown after that turn is ignored.
   */
  private early: Set<string> | undefined;

  /**
   * The promise of this elicitation's completion: it resolves on the server's notification, and
   * rejects with the signal's reason if `signal` aborts first. Without an id (revision
   * 2026-07-28 gives none) only the signal settles it. It is marked handled: nobody has to await it.
   */
  expect(elicitationId: string | undefined, signal: AbortSignal): Promise<void> {
    const completion = elicitationId === undefined ? new Promise<void>(() => {}) : this.entry(elicitationId).promise;
    const completed = signal.aborted
      ? Promise.reject(abortReason(signal))
      : new Promise<void>((resolve, reject) => {
          const onAbort = () => reject(abortReason(signal));
          signal.addEventListener("abort", onAbort, { once: true });
          void completion.then(() => {
            signal.removeEventListener("abort", onAbort);
            resolve();
          });
        });
    completed.catch(() => {});
    return completed;
  }

  /** The params of one `notifications/elicitation/complete` (already checked). */
  notified(elicitationId: string): void {
    const entry = this.waiting.get(elicitationId);
    if (!entry) {
      this.noteEarly(elicitationId);
      return; // unknown, or completed before: ignored
    }
    this.waiting.delete(elicitationId);
    entry.resolve();
    this.tell(elicitationId);
  }

  private tell(elicitationId: string): void {
    for (const listener of this.listeners) {
      try {
        listener({ elicitationId });
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  /** Calls `listener` for each elicitation this client handled that the server says is complete. */
  onComplete(listener: (completion: ElicitationCompletion) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forgets every id (the client closed): their promises stay as they are, settled by their signals. */
  clear(): void {
    this.waiting.clear();
  }

  private noteEarly(elicitationId: string): void {
    if (!this.early) {
      const early = new Set<string>();
      this.early = early;
      setImmediate(() => {
        if (this.early === early) this.early = undefined;
      });
    }
    if (this.early.size < MAX_PENDING_COMPLETIONS) this.early.add(elicitationId);
  }

  private entry(elicitationId: string): Waiting {
    const known = this.waiting.get(elicitationId);
    if (known) return known;
    if (this.early?.delete(elicitationId)) {
      this.tell(elicitationId);
      return { promise: Promise.resolve(), resolve: () => {} };
    }
    if (this.waiting.size >= MAX_PENDING_COMPLETIONS) this.waiting.delete(this.waiting.keys().next().value!);
    let resolve!: () => void;
    const promise = new Promise<void>((settle) => (resolve = settle));
    const entry = { promise, resolve };
    this.waiting.set(elicitationId, entry);
    return entry;
  }
}
