/**
 * One abort listener per caller signal, however many requests share it.
 *
 * A caller often passes one long-lived signal to every call. Adding a listener per request
 * would pile listeners on it until Node prints `MaxListenersExceededWarning` (at 11), a warning
 * mcpwire would be printing on the caller's behalf. Instead each signal gets a single listener
 * that aborts every request registered with it, removed when the last of them settles.
 */
export class SignalWatch<T> {
  private readonly watched = new Map<AbortSignal, { members: Set<T>; listener: () => void }>();

  constructor(private readonly onAbort: (member: T, signal: AbortSignal) => void) {}

  add(signal: AbortSignal, member: T): void {
    let entry = this.watched.get(signal);
    if (!entry) {
      const members = new Set<T>();
      const listener = () => {
        this.watched.delete(signal);
        for (const m of members) this.onAbort(m, signal);
      };
      entry = { members, listener };
      this.watched.set(signal, entry);
      signal.addEventListener("abort", listener, { once: true });
    }
    entry.members.add(member);
  }

  delete(signal: AbortSignal, member: T): void {
    const entry = this.watched.get(signal);
    if (!entry || !entry.members.delete(member) || entry.members.size > 0) return;
    this.watched.delete(signal);
    signal.removeEventListener("abort", entry.listener);
  }
}
