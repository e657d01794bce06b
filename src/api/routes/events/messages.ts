/**
 * The messages of the event stream (docs/events.md): each stored event shaped for the API, and
 * written as one Server-Sent Events message (`id:`, `event:`, `data:` with one line of JSON).
 */
import { Type, type Static } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import type { BlockEventData, DayEventData, ReorgEventData } from '../../../ingest/events.ts';
import { formatTimestamp } from '../../../time.ts';
import { Day, Timestamp } from '../../schemas/common.ts';
import type { StoredEvent } from './hub.ts';

const TipFields = Type.Object({ height: Type.Integer(), hash: Type.String() });

/** The `data` of each event kind: documented in the OpenAPI description and docs/events.md, checked by the tests. */
export const BlockEvent = Type.Object({
  chain: Type.String(),
  height: Type.Integer(),
  hash: Type.String(),
  timestamp: { ...Timestamp, description: 'The block’s time, UTC, YYYY-MM-DDTHH:MM:SS.' },
  tx_count: Type.Integer({ description: 'Transactions in the block.' }),
});

export const ReorgEvent = Type.Object({
  chain: Type.String(),
  depth: Type.Integer({ description: 'Blocks replaced: old_tip.height − ancestor_height.' }),
  ancestor_height: Type.Integer({ description: 'The highest block both branches share; the blocks above it were replaced.' }),
  old_tip: TipFields,
  new_tip: { ...TipFields, description: 'The head of the new branch when the reorganisation was found; its blocks follow as block events.' },
});

export const DayEvent = Type.Object({ chain: Type.String(), day: Day });

export const GapEvent = Type.Object({
  chain: Type.String(),
  missed_from: Type.Integer({ description: 'The first event id the stream does not deliver.' }),
  missed_to: Type.Integer({ description: 'The last event id the stream does not deliver; the stream goes on after it.' }),
});

type EventData = Static<typeof BlockEvent> | Static<typeof ReorgEvent> | Static<typeof DayEvent>;

/** A stored event's `data` as the API sends it. */
export function eventData(chain: ChainId, event: StoredEvent): EventData {
  switch (event.kind) {
    case 'block': {
      const d = event.data as unknown as BlockEventData;
      return { chain, height: d.height, hash: d.hash, timestamp: formatTimestamp(d.ts), tx_count: d.tx_count };
    }
    case 'reorg': {
      const d = event.data as unknown as ReorgEventData;
      return {
        chain,
        depth: d.depth,
        ancestor_height: d.ancestor_height,
        old_tip: { height: d.old_tip_height, hash: d.old_tip_hash },
        new_tip: { height: d.new_tip_height, hash: d.new_tip_hash },
      };
    }
    case 'day':
      return { chain, day: (event.data as unknown as DayEventData).day };
  }
}

/** One SSE message. JSON.stringify escapes line breaks, so `data` is always one line. */
export function sseMessage(id: number, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function eventMessage(chain: ChainId, event: StoredEvent): string {
  return sseMessage(event.id, event.kind, eventData(chain, event));
}

/**
 * Events `from`..`to` will not be delivered (pruned from the log, or skipped because the client
 * must refetch anyway); the message's id is `to`, so a client that resumes from it does not hear
 * of the same gap again.
 */
export function gapMessage(chain: ChainId, from: number, to: number): string {
  const data: Static<typeof GapEvent> = { chain, missed_from: from, missed_to: to };
  return sseMessage(to, 'gap', data);
}

export const HEARTBEAT = ': heartbeat\n\n';
