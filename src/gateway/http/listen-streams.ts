/**
 * The replica's ceiling on open `subscriptions/listen` streams (`maxListenStreams`). A listen
 * stream holds no request slot and has no deadline (forward.ts), so without a ceiling of its own
 * every caller could open any number of them, each holding a connection and a request at a child
 * for as long as it likes. Past the ceiling a new one is refused at once (503 with `Retry-After`).
 */
export class ListenStreams {
  private open = 0;

  constructor(
    private readonly max: number,
    private readonly changed: (open: number) => void = () => {},
  ) {}

  get count(): number {
    return this.open;
  }

  /** A place for one more stream: its release (call it once, when the stream ends), or `undefined` when all are taken. */
  acquire(): (() => void) | undefined {
    if (this.open >= this.max) return undefined;
    this.open++;
    this.changed(this.open);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      this.changed(this.open);
    };
  }
}
