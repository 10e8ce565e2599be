/**
 * In-memory transport: a linked pair of ends in one process, no subprocess, no port.
 *
 * Messages are copied through their JSON text (so a mutation after `send` never reaches the
 * peer, and the byte ceiling is measured as it would be on a wire), delivered asynchronously and
 * in order, and the pair is closed once, from either side. What the server end sends in one
 * `send` is one message on the wire: an array is a JSON-RPC batch, read as any wire reads one
 * (`common/incoming-batches.ts`).
 *
 * The server end has the shape of the official SDK's `Transport` (start, send, close,
 * onmessage, onclose, onerror), so an SDK server object can `connect()` to it directly.
 */
import { McpTransportError } from "../errors.js";
import { serializeMessage, type JsonRpcMessage, type RequestId } from "../protocol/jsonrpc.js";
import { IncomingBatches } from "./common/incoming-batches.js";
import { ReadStallWatch } from "./common/read-stall.js";
import { abortReason } from "../util/abort.js";
import { isOverBytes, messageTooLarge } from "./limits.js";
import type { ConnectionEvents, McpConnection, McpTransport, OpenOptions, SendContext, WireRules } from "./transport.js";

/** The server's end of a pair, in the official SDK's Transport shape. */
export interface MemoryServerEnd {
  // Method syntax on purpose: the SDK's own message type is wider than ours, and what the server
  // sends is checked on arrival (IncomingBatches) like anything read from a wire.
  onmessage?(message: JsonRpcMessage): void;
  onclose?(): void;
  onerror?(error: Error): void;
  start(): Promise<void>;
  send(message: object): Promise<void>;
  close(): Promise<void>;
}

/** Anything with `connect(transport)` in the official SDK's Transport shape (Server, McpServer). */
export interface InProcessServer {
  // `never`: any server whose connect() takes some Transport type fits; the SDK's own Transport
  // type is not ours to import, and MemoryServerEnd has its shape.
  connect(transport: never): Promise<void>;
}

const KIND = "memory";

/** One linked pair. Its client side is opened by `MemoryTransport`, its server side is `serverEnd`. */
class MemoryLink {
  closed = false;
  private clientEvents: ConnectionEvents | undefined;
  private clientQueue: JsonRpcMessage[] | undefined = [];
  private closedByClient = false;
  private stall: ReadStallWatch | undefined;
  private limitBytes = Number.MAX_SAFE_INTEGER;
  /** Whether the server end may send a JSON-RPC batch (an array) as one message (2025-03-26). */
  private readonly batches = new IncomingBatches();
  private markEnded!: () => void;
  /** Settles once the client has been told that the link ended. */
  readonly ended = new Promise<void>((resolve) => (this.markEnded = resolve));
  readonly serverEnd: MemoryServerEnd;

  constructor() {
    this.serverEnd = {
      start: async () => {},
      send: async (message) => {
        if (this.closed) throw new McpTransportError("DISCONNECTED", "the in-memory connection is closed");
        const text = JSON.stringify(message);
        queueMicrotask(() => this.deliverToClient(text));
      },
      close: async () => {
        this.end(false);
      },
    };
  }

  attachClient(events: ConnectionEvents, options: OpenOptions): void {
    this.clientEvents = events;
    this.limitBytes = options.limits.maxMessageBytes;
    this.stall = new ReadStallWatch(options.limits.readTimeoutMs, "the in-memory server", (id, error) =>
      events.requestFailed(id, error),
    );
    const queued = this.clientQueue ?? [];
    this.clientQueue = undefined;
    for (const message of queued) this.receive(message);
  }

  sendFromClient(message: JsonRpcMessage, context?: SendContext): Promise<void> {
    if (this.closed) {
      return Promise.reject(new McpTransportError("DISCONNECTED", "the in-memory connection is closed"));
    }
    let text: string;
    try {
      text = serializeMessage(message);
    } catch (error) {
      return Promise.reject(error);
    }
    if (isOverBytes(text, this.limitBytes)) return Promise.reject(messageTooLarge(this.limitBytes, "sent", KIND));
    this.stall?.sent(message, context?.longLived);
    queueMicrotask(() => {
      if (!this.closed) this.serverEnd.onmessage?.(JSON.parse(text) as JsonRpcMessage);
    });
    return Promise.resolve();
  }

  forget(id: RequestId): void {
    this.stall?.forget(id);
  }

  follow(rules: WireRules | undefined): void {
    this.batches.follow(rules);
  }

  private deliverToClient(text: string): void {
    if (this.closed) return;
    if (isOverBytes(text, this.limitBytes)) {
      this.fail(messageTooLarge(this.limitBytes, "received", KIND));
      return;
    }
    let read: JsonRpcMessage | JsonRpcMessage[];
    try {
      read = this.batches.read(text);
    } catch (error) {
      this.fail(error as McpTransportError);
      return;
    }
    if (!Array.isArray(read)) this.arrive(read);
    else for (const message of read) this.arrive(message);
  }

  /** Held until the client end is open, handed over after. */
  private arrive(message: JsonRpcMessage): void {
    if (this.clientQueue) this.clientQueue.push(message);
    else this.receive(message);
  }

  private receive(message: JsonRpcMessage): void {
    // A message of a batch may have ended the link (a handler closing it).
    if (this.closed) return;
    this.stall?.received(message);
    this.clientEvents?.message(message);
  }

  private fail(error: McpTransportError): void {
    this.end(true, error);
  }

  /** Ends the pair once; the side that did not ask learns of it. */
  end(byClient: boolean, error?: McpTransportError): void {
    if (this.closed) return;
    this.closed = true;
    this.closedByClient = byClient && !error;
    this.stall?.stop();
    queueMicrotask(() => {
      this.serverEnd.onclose?.();
      const ending = this.closedByClient
        ? {}
        : { error: error ?? new McpTransportError("DISCONNECTED", "the in-memory server closed the connection") };
      this.clientEvents?.closed(ending);
      this.markEnded();
    });
  }
}

/**
 * The client side of an in-memory connection: `new MemoryTransport(server)` runs an SDK server
 * object in-process, connecting it to a new link on each `open`.
 */
export class MemoryTransport implements McpTransport {
  readonly kind = KIND;
  readonly description: string;

  constructor(
    private readonly server: InProcessServer,
    description = "in-memory server",
  ) {
    this.description = `memory: ${description}`;
  }

  protected async makeLink(): Promise<MemoryLink> {
    const link = new MemoryLink();
    await this.server.connect(link.serverEnd as never);
    return link;
  }

  async open(events: ConnectionEvents, options: OpenOptions): Promise<McpConnection> {
    if (options.signal?.aborted) throw abortReason(options.signal);
    let link: MemoryLink;
    try {
      link = await this.makeLink();
    } catch (cause) {
      if (cause instanceof McpTransportError) throw cause;
      throw new McpTransportError("UNAVAILABLE", `${this.description} could not be started`, { cause });
    }
    if (link.closed) throw new McpTransportError("UNAVAILABLE", `${this.description} closed while opening`);
    if (options.signal?.aborted) {
      link.end(true);
      throw abortReason(options.signal);
    }
    link.attachClient(events, options);
    return {
      send: (message, context) => link.sendFromClient(message, context),
      abandon: (id) => link.forget(id),
      setProtocolVersion: (_revision, rules) => link.follow(rules),
      close: () => {
        link.end(true);
        return link.ended;
      },
    };
  }
}

/** The transport of a pair made by `createMemoryPair`: one link, opened once. */
class PairedMemoryTransport extends MemoryTransport {
  private link: MemoryLink | undefined;

  constructor(link: MemoryLink) {
    super({ connect: async () => {} }, "linked pair");
    this.link = link;
  }

  protected override async makeLink(): Promise<MemoryLink> {
    const link = this.link;
    if (!link) throw new McpTransportError("UNAVAILABLE", "this in-memory pair was already opened once");
    this.link = undefined;
    return link;
  }
}

/** A linked pair: a transport for the client, and the server's end of the same link. */
export function createMemoryPair(): { transport: McpTransport; server: MemoryServerEnd } {
  const link = new MemoryLink();
  return { transport: new PairedMemoryTransport(link), server: link.serverEnd };
}
