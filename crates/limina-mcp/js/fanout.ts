// The JS face of limina-mcp's spectator fan-out over core NATS: the world
// server's sink (`--spectator-sink`) publishes its state stream once a
// tick; a relay subscribes and serves it to browsers (js/src/web/relay.ts).
// Each message is numbered, so a subscriber sees what it missed.

interface FanoutOps {
  op_mcp_fanout_publisher(url: string): Promise<number>;
  op_mcp_fanout_publish(id: number, text: string): boolean;
  op_mcp_fanout_subscribe(url: string): Promise<number>;
  op_mcp_fanout_next(id: number): Promise<[number, string][]>;
}

const ops = Limina.ops as unknown as FanoutOps;

/** Where a world server publishes its state stream: `nats://HOST:PORT/SUBJECT`. */
export class SpectatorSink {
  private constructor(private readonly id: number) {}

  /** Connects; `unavailable` when the NATS server cannot be reached, `invalid_input` for a bad URL. */
  static async open(url: string): Promise<SpectatorSink> {
    return new SpectatorSink(await ops.op_mcp_fanout_publisher(url));
  }

  /** Publishes one message; false when it was dropped (NATS that far behind). */
  publish(text: string): boolean {
    return ops.op_mcp_fanout_publish(this.id, text);
  }
}

/** A world's state stream as a relay receives it. */
export class SpectatorStream {
  private constructor(private readonly id: number) {}

  static async open(url: string): Promise<SpectatorStream> {
    return new SpectatorStream(await ops.op_mcp_fanout_subscribe(url));
  }

  /** The next messages, oldest first, as `[seq, text]` (waits for one; empty once the subscription ended). */
  next(): Promise<[number, string][]> {
    return ops.op_mcp_fanout_next(this.id);
  }
}
