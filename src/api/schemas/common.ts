/**
 * Shared TypeBox building blocks. Every route declares its request and response once with these;
 * the same declaration validates requests, serialises responses and writes the OpenAPI document.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { CHAINS } from '../../chain/chains.ts';
import { WINDOW_OR_ALL_PATTERN, WINDOW_PATTERN } from '../params/window.ts';

/** A string restricted to `values`, typed as their union. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * `schema` or null. A scalar becomes one schema with a type list (`["string", "null"]`): the
 * serialiser writes that without validating it, whereas for a union it validates each value to pick
 * the branch, and a value outside the pattern (a negative balance left by an indexing gap, say) then
 * failed the whole answer with a 500.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string' && type !== 'object' && type !== 'array' && !('enum' in schema)) {
    // A plain copy: TypeBox's own symbol keys would say it is still the non-null kind.
    const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
    return Type.Unsafe<Static<T> | null>({ ...plain, type: [type, 'null'] });
  }
  return Type.Union([schema, Type.Null()]);
}

export const Amount = Type.String({
  pattern: '^[0-9]+$',
  description: 'Amount string: unsigned integer in the chain\'s smallest unit (pow: shor, pos: planck), as a decimal string.',
  examples: ['1000000000'],
});
export const NullableAmount = Nullable(Amount);

export const Timestamp = Type.String({
  description: 'UTC time, YYYY-MM-DDTHH:MM:SS.',
  examples: ['2026-11-22T09:30:00'],
});
export const NullableTimestamp = Nullable(Timestamp);
export const Day = Type.String({ description: 'UTC day, YYYY-MM-DD.', examples: ['2026-11-22'] });

const ChainParam = StringEnum(CHAINS, { description: 'Chain: pow (legacy proof of work) or pos (QRL 2.0).' });

export const ChainPathParams = Type.Object({ chain: ChainParam });
export const AddressPathParams = Type.Object({
  chain: ChainParam,
  address: Type.String({ description: 'Address of the chain. pos accepts the Q, Z and 0x forms and answers in the Q form.' }),
});

/** The path parameters of a route of pow addresses only (`/pow/addresses/{address}/…`). */
export const PowAddressPathParams = Type.Object({
  address: Type.String({ description: 'A pow address: Q + 78 hex digits, any case.' }),
});

/** The echoed context of a per-address answer. */
export const AddressEchoFields = {
  chain: Type.String(),
  network: Type.String(),
  address: Type.String({ description: 'The address asked about, in canonical form (Q + lowercase hex).' }),
};

/** Query booleans accept true/false/1/0; every boolean parameter defaults to false. */
const BOOLEAN_VALUES = ['true', 'false', '1', '0'] as const;
export function BooleanQuery(description: string) {
  return Type.Optional(StringEnum(BOOLEAN_VALUES, { default: 'false', description: `${description} (true/false/1/0, default false)` }));
}
export function isTrue(value: (typeof BOOLEAN_VALUES)[number] | undefined): boolean {
  return value === 'true' || value === '1';
}

export function IntegerQuery(options: { minimum: number; maximum?: number; default: number; description: string }) {
  return Type.Integer({ maximum: Number.MAX_SAFE_INTEGER, ...options });
}

/** Unix seconds up to the end of year 9999. */
const MAX_UNIX = 253_402_300_799;

/** `time_from` and `time_to` of a list filtered by time (Unix seconds; `rows` names what is kept). */
export function TimeRangeQuery(rows: string) {
  return {
    time_from: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_UNIX, description: `Keep ${rows} with timestamp >= this (Unix seconds).` })),
    time_to: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_UNIX, description: `Keep ${rows} with timestamp < this (Unix seconds).` })),
  };
}

/** A `window` parameter; `allowAll`: it also takes `all` (the whole history), as the spec allows on some endpoints. */
export function WindowQuery(fallback: string, description = 'Window length: a positive integer with m, h, d, w or y', { allowAll = false } = {}) {
  return Type.Optional(Type.String({ pattern: allowAll ? WINDOW_OR_ALL_PATTERN : WINDOW_PATTERN, default: fallback, description: `${description}; default ${fallback}.`, examples: [fallback] }));
}

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ param: Type.String(), message: Type.String() }))),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' },
);

/** An error answer: a problem body, sent as application/problem+json. */
export function problemResponse(description: string) {
  return { description, content: { 'application/problem+json': { schema: Type.Ref('Problem') } } };
}

/** The error responses every authenticated endpoint can give, for the OpenAPI document. */
export const STANDARD_ERRORS = {
  400: problemResponse('A parameter is malformed, out of range or not an allowed value; errors names each.'),
  401: problemResponse('No key, a malformed Authorization header, or an unknown or revoked key.'),
  404: problemResponse('Unknown chain.'),
  429: problemResponse('The key exceeded its rate limit; Retry-After says when to retry.'),
  503: problemResponse('The store is unavailable or a query timed out; Retry-After: 5.'),
};
