/**
 * Chains whose history the process is still loading into the store it already serves (the demo's
 * first start serves pos while pow loads: docs/demo.md). The loader moves each chain's progress;
 * the API answers the requests that read a loading chain 503 and /readyz lists them, so nothing
 * half-loaded is ever shown as a figure.
 */
import type { ChainId } from '../chain/chains.ts';

export interface ChainLoad {
  /** The highest height written so far (-1 before the first block). */
  height: number;
  /** The height the load ends at. */
  toHeight: number;
}

/** What the API reads: each chain still loading, with its progress. Empty once every load is in. */
export interface LoadingChains {
  current(): ReadonlyMap<ChainId, ChainLoad>;
}

export interface ChainLoads extends LoadingChains {
  /** `chain` loads up to `toHeight` (announced before its first block is written). */
  begin(chain: ChainId, toHeight: number): void;
  /** `chain`'s load has written up to `height`. */
  progress(chain: ChainId, height: number): void;
  /** `chain` is in whole: days closed, indexes and labels done. */
  end(chain: ChainId): void;
}

export function createChainLoads(): ChainLoads {
  const loads = new Map<ChainId, ChainLoad>();
  return {
    current: () => loads,
    begin: (chain, toHeight) => void loads.set(chain, { height: -1, toHeight }),
    progress(chain, height) {
      const load = loads.get(chain);
      if (load) load.height = Math.max(load.height, height);
    },
    end: (chain) => void loads.delete(chain),
  };
}
