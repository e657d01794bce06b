/** GET /api/v1/{chain}/addresses/{address}/provenance: who funded an address first, and its first and last transactions. */
import { Type, type Static } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { formatTimestampOrNull } from '../../../time.ts';
import { AddressPathParams, Nullable, NullableTimestamp, STANDARD_ERRORS, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho, type AddressEcho } from '../../params/address.ts';
import { readProvenance } from './provenance.read.ts';

const ProvenanceResponse = Type.Object({
  funded_by: Nullable(
    Type.String({
      description:
        'Sender of the first native value the address received (the coinbase or zero-address sentinel for a mint); ' +
        'null when that value came without a sender (genesis allocation, pos withdrawal or fee tips) or never came.',
    }),
  ),
  funded_at: { ...NullableTimestamp, description: 'Time of that first incoming value.' },
  funded_tx: Nullable(Type.String({ description: 'Hash of the transaction that carried it; null as for funded_by.' })),
  first_tx: Nullable(Type.String({ description: 'Hash of the first transaction touching the address.' })),
  first_tx_at: NullableTimestamp,
  last_tx: Nullable(Type.String({ description: 'Hash of the latest transaction touching the address.' })),
  last_tx_at: NullableTimestamp,
  ...AddressEchoFields,
});

async function loadProvenance(ctx: ApiContext, echo: AddressEcho): Promise<Static<typeof ProvenanceResponse>> {
  const row = await readProvenance(ctx.store, echo.chain, echo.address);
  return {
    funded_by: row?.funded_by ?? null,
    funded_at: formatTimestampOrNull(row?.funded_at),
    funded_tx: row?.funded_tx ?? null,
    first_tx: row?.first_tx ?? null,
    first_tx_at: formatTimestampOrNull(row?.first_seen),
    last_tx: row?.last_tx ?? null,
    last_tx_at: formatTimestampOrNull(row?.last_seen),
    ...echo,
  };
}

export function provenanceRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address/provenance',
    {
      schema: {
        tags: ['addresses'],
        operationId: 'getAddressProvenance',
        summary: 'First funder, first and last transaction of an address',
        params: AddressPathParams,
        response: { 200: ProvenanceResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => loadProvenance(ctx, addressEcho(ctx, request, request.params.chain, request.params.address)),
  );
}
