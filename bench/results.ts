/** The shape of a results file (bench/results/*.json). */
import type { StoreKind } from '../src/store/store.ts';
import type { AnvilFigures } from './parts/anvil.ts';
import type { PowNodeFigures } from './parts/pow-node.ts';
import type { PowMainnetFigures } from './parts/pow-mainnet.ts';
import type { PowArchiveFigures } from './parts/pow-archive.ts';
import type { SoakFigures } from './parts/soak.ts';
import type { ApiFigures } from './parts/api.ts';
import type { CopyCeiling } from './parts/ceiling.ts';
import type { DemoFigures } from './parts/demo.ts';
import type { BuildRecord } from './parts/generate.ts';
import type { IngestFigures } from './parts/ingest.ts';

export interface TierResult {
  tier: string;
  store: StoreKind;
  description: string;
  /** The build's record; `built` says whether this run built it (else it was reused). */
  build: BuildRecord;
  built: boolean;
  copy?: CopyCeiling;
  ingest?: IngestFigures;
  api?: ApiFigures;
  /** Wall seconds of each part of this tier in this run. */
  partSeconds: Record<string, number>;
}

export interface BenchResults {
  format: 1;
  startedAt: string;
  finishedAt: string;
  wallSeconds: number;
  command: string;
  git: { commit: string; dirty: boolean };
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    node: string;
    /** Load averages (1, 5, 15 min) when the run started and ended: other work on the machine. */
    loadAverage: { start: number[]; end: number[] };
    postgres: { origin: string; version: string; settings: Record<string, string> } | null;
  };
  options: { tiers: string[]; parts: string[]; stores: string[]; connections: number; seconds: number | null };
  tiers: TierResult[];
  demo?: DemoFigures;
  anvil?: AnvilFigures;
  powNode?: PowNodeFigures;
  powMainnet?: PowMainnetFigures;
  powArchive?: PowArchiveFigures;
  soak?: SoakFigures;
  errors: { part: string; tier?: string; message: string }[];
}

