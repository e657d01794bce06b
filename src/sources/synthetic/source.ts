/**
 * A chain generator behind the `BlockSource` interface. Every call to `blocks(from)` starts a
 * fresh generator at height 0 and fast-forwards (without building orphan branches or yielding)
 * to `from`: a resumed run yields exactly the tail of a full run, from the segment of height
 * `from` on (its orphan blocks included). `hashAt`/`blockAt` answer from the last run's recent
 * canonical blocks, or regenerate.
 */
import type { ChainId } from '../../chain/chains.ts';
import type { BlockSource, SourceItem } from '../../chain/model.ts';
import type { ChainGenerator } from './generator.ts';

/** Canonical heights remembered per source for `hashAt`/`blockAt` (reorgs are at most 3 deep). */
const REMEMBERED = 256;
/** Milliseconds of fast-forwarding between two turns of the event loop. */
const FAST_FORWARD_SLICE_MS = 4;

function canonicalHash(item: SourceItem): string | null {
  if (item.kind === 'block') return item.block.hash;
  if (item.kind === 'undecodable') return (item.payload as { hash: string }).hash;
  return null;
}

export function createGeneratedSource(chain: ChainId, start: () => ChainGenerator): BlockSource {
  const recent = new Map<number, SourceItem>();
  const remember = (height: number, item: SourceItem) => {
    recent.set(height, item);
    recent.delete(height - REMEMBERED);
  };
  const regenerate = (height: number): SourceItem | null => {
    const generator = start();
    for (;;) {
      const segment = generator.next(false);
      if (!segment) return null;
      if (segment.height === height) return segment.items.at(-1)!;
    }
  };
  const canonicalAt = (height: number): SourceItem | null => recent.get(height) ?? regenerate(height);

  return {
    chain,
    name: 'synthetic',
    async *blocks(fromHeight: number) {
      const generator = start();
      let sliceStart = performance.now();
      for (;;) {
        const emit = generator.nextHeight >= fromHeight;
        const segment = generator.next(emit);
        if (!segment) break;
        if (!emit) {
          // A long fast-forward (a resumed live demo) lets the process's other work (serving) run between heights.
          if (performance.now() - sliceStart >= FAST_FORWARD_SLICE_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            sliceStart = performance.now();
          }
          continue;
        }
        remember(segment.height, segment.items.at(-1)!);
        for (const item of segment.items) yield item;
      }
      yield { kind: 'caught-up' };
    },
    async hashAt(height: number) {
      const item = canonicalAt(height);
      return item ? canonicalHash(item) : null;
    },
    async blockAt(height: number) {
      return canonicalAt(height);
    },
  };
}

/** Drains a source synchronously-fast into an array (tests and small tools). */
export async function collect(source: BlockSource, fromHeight = 0): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  for await (const item of source.blocks(fromHeight)) items.push(item);
  return items;
}
