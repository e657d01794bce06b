/**
 * An event stream client as docs/events.md tells explorers to write one: it keeps the last id and,
 * whenever the stream ends or breaks, reconnects with `Last-Event-ID` after a second. It also drops
 * its own connection now and then (a browser tab put to sleep, a proxy's idle cut), so that
 * resuming is exercised beside the faults. Every message is kept for the check at the end.
 */
import http from 'node:http';
import type { ChainId } from '../../src/chain/chains.ts';
import type { Timeline } from './timeline.ts';

export interface Received {
  id: number;
  kind: string;
  height?: number;
  hash?: string;
}

const RECONNECT_MS = 1000;

export class StreamClient {
  readonly received: Received[] = [];
  /** Connections that answered 200, and what the others ended with. */
  connects = 0;
  readonly refusals: { at: number; phase: string; what: string }[] = [];
  /** Connections the client dropped itself. */
  ownDrops = 0;
  private lastId: string | null = null;
  private request: http.ClientRequest | undefined;
  private open = false;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private dropTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly name: string,
    private readonly base: string,
    readonly chain: ChainId,
    private readonly headers: Record<string, string>,
    private readonly timeline: Timeline,
    /** Seconds between the client's own drops: a random time in this range. */
    private readonly dropEvery: [number, number],
  ) {}

  get connected(): boolean {
    return this.open;
  }

  start(): void {
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.dropTimer);
    this.request?.destroy();
  }

  private connect(): void {
    if (this.stopped) return;
    const headers = { ...this.headers, accept: 'text/event-stream', ...(this.lastId !== null ? { 'last-event-id': this.lastId } : {}) };
    const request = http.get(`${this.base}/api/v1/${this.chain}/events`, { headers, agent: false }, (response) => {
      if (response.statusCode !== 200) {
        this.refusals.push({ at: this.timeline.now(), phase: this.timeline.phase, what: `HTTP ${response.statusCode}` });
        response.resume();
        response.on('end', () => this.again());
        return;
      }
      this.open = true;
      this.connects++;
      const [min, max] = this.dropEvery;
      this.dropTimer = setTimeout(() => {
        this.ownDrops++;
        request.destroy();
      }, 1000 * (min + Math.random() * (max - min)));
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          this.message(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      });
      response.on('end', () => this.again());
      response.on('error', () => this.again());
      response.on('close', () => this.again());
    });
    request.on('error', (error) => {
      if (!this.open) this.refusals.push({ at: this.timeline.now(), phase: this.timeline.phase, what: (error as NodeJS.ErrnoException).code ?? error.message });
      this.again();
    });
    this.request = request;
  }

  private again(): void {
    this.open = false;
    clearTimeout(this.dropTimer);
    clearTimeout(this.reconnectTimer);
    if (!this.stopped) this.reconnectTimer = setTimeout(() => this.connect(), RECONNECT_MS);
  }

  private message(text: string): void {
    let id: string | null = null;
    let kind = 'message';
    let data = '';
    for (const line of text.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') kind = value;
      else if (field === 'data') data += value;
    }
    if (data === '' || id === null) return;
    this.lastId = id;
    const parsed = JSON.parse(data) as { height?: number; hash?: string };
    this.received.push({ id: Number(id), kind, ...(kind === 'block' ? { height: parsed.height, hash: parsed.hash } : {}) });
  }
}
