/**
 * Keepalive by ping and pong, for a connection that is one long-lived socket (WebSocket).
 *
 * A socket whose peer vanished without a FIN or RST (a laptop that slept, a NAT entry that
 * expired, a proxy that dropped the flow) stays "open" for as long as nothing is written, and a
 * request on it waits for an answer that can never come. Pinging every `intervalMs` and giving
 * the peer `timeoutMs` to answer turns such a connection into a reported end instead of a hang,
 * and the regular traffic also keeps idle-timeout proxies from closing a quiet connection.
 *
 * One ping at a time: the next is sent `intervalMs` after the previous one was answered, so a
 * dead peer is found within about `intervalMs + timeoutMs`. Any message from the peer while a
 * ping waits also proves it alive (a pong can queue behind a large message on a busy socket).
 */
import { describeValue, MAX_TIMER_MS } from "../limits.js";
import { checkWholeNumber } from "../../util/whole-number.js";

export interface KeepAliveOptions {
  /**
   * How long, in ms, the connection may stay quiet before a ping is sent; 0 sends no pings.
   * @default 30_000 (under the 60 s idle timeout common to load balancers and reverse proxies)
   */
  intervalMs?: number;
  /**
   * How long, in ms, a ping may wait for its pong before the connection is presumed dead; 0 keeps
   * sending pings (so proxies see traffic) but never gives up on an answer.
   * @default 10_000 (a live peer answers a ping in well under a second, even across continents)
   */
  timeoutMs?: number;
}

export type KeepAliveSettings = Required<KeepAliveOptions>;

/** See `KeepAliveOptions.intervalMs`. */
export const DEFAULT_KEEPALIVE_INTERVAL_MS = 30_000;
/** See `KeepAliveOptions.timeoutMs`. */
export const DEFAULT_KEEPALIVE_TIMEOUT_MS = 10_000;

const KEEPALIVE_KEYS: readonly (keyof KeepAliveOptions)[] = ["intervalMs", "timeoutMs"];

/** The keepalive in force: the defaults, overridden by what the user gave, each value checked. */
export function resolveKeepAlive(given: unknown, where = "options"): KeepAliveSettings {
  const settings: KeepAliveSettings = {
    intervalMs: DEFAULT_KEEPALIVE_INTERVAL_MS,
    timeoutMs: DEFAULT_KEEPALIVE_TIMEOUT_MS,
  };
  if (given === undefined) return settings;
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new TypeError(
      `${where}: "keepAlive" must be an object { intervalMs, timeoutMs }, got ${describeValue(given)}` +
        " (set intervalMs to 0 to turn keepalive off)",
    );
  }
  for (const key of Object.keys(given)) {
    if (!(KEEPALIVE_KEYS as readonly string[]).includes(key)) {
      throw new TypeError(`${where}: "keepAlive.${key}" is not an option; the options are ${KEEPALIVE_KEYS.join(", ")}`);
    }
  }
  for (const key of KEEPALIVE_KEYS) {
    const value = (given as Record<string, unknown>)[key];
    if (value === undefined) continue;
    settings[key] = checkWholeNumber(value, `keepAlive.${key}`, where, { min: 0, max: MAX_TIMER_MS, minMeans: "off", defaultValue: settings[key] });
  }
  return settings;
}

export class PingKeepAlive {
  private nextPing: NodeJS.Timeout | undefined;
  private pongDeadline: NodeJS.Timeout | undefined;
  /** Whether the peer showed any sign of life since the last ping was sent. */
  private heardSincePing = false;
  private stopped = false;

  /**
   * @param ping sends one ping; it may throw when the socket is going, which stops nothing here
   * @param onDead called once, when a ping went unanswered for `timeoutMs` with no other sign of life
   */
  constructor(
    private readonly settings: KeepAliveSettings,
    private readonly ping: () => void,
    private readonly onDead: () => void,
  ) {}

  start(): void {
    if (this.settings.intervalMs > 0) this.scheduleNextPing();
  }

  /** Call on every pong. */
  pong(): void {
    this.heardSincePing = true;
    if (this.pongDeadline === undefined) return;
    clearTimeout(this.pongDeadline);
    this.pongDeadline = undefined;
    this.scheduleNextPing();
  }

  /** Call on every message from the peer. */
  activity(): void {
    this.heardSincePing = true;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.nextPing);
    clearTimeout(this.pongDeadline);
    this.nextPing = this.pongDeadline = undefined;
  }

  private scheduleNextPing(): void {
    if (this.stopped) return;
    this.nextPing = unref(setTimeout(() => this.sendPing(), this.settings.intervalMs));
  }

  private sendPing(): void {
    this.nextPing = undefined;
    if (this.stopped) return;
    this.heardSincePing = false;
    try {
      this.ping();
    } catch {
      // The socket is closing; its end is reported by the connection, not by the keepalive.
      return;
    }
    if (this.settings.timeoutMs === 0) {
      this.scheduleNextPing();
      return;
    }
    this.pongDeadline = unref(setTimeout(() => this.checkAnswer(), this.settings.timeoutMs));
  }

  private checkAnswer(): void {
    this.pongDeadline = undefined;
    if (this.stopped) return;
    if (this.heardSincePing) {
      this.scheduleNextPing();
      return;
    }
    this.stop();
    this.onDead();
  }
}

/** An open socket keeps the process alive by itself; its keepalive timers need not. */
function unref(timer: NodeJS.Timeout): NodeJS.Timeout {
  timer.unref();
  return timer;
}
