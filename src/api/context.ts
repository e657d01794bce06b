import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../config/env.ts';
import type { ChainId } from '../chain/chains.ts';
import type { Store } from '../store/store.ts';
import type { CursorCodec } from './params/cursor.ts';

/** What route handlers need, handed to each route group when it is registered. */
export interface ApiContext {
  store: Store;
  config: Config;
  cursors: CursorCodec;
  /** The network name echoed in responses for a chain. */
  network(chain: ChainId): string;
}

/** The Fastify instance a route registers itself on (with the TypeBox type provider). */
export type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];
