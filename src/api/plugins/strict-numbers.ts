/**
 * Numbers in a query string must be plain decimals. The validator coerces text with Number(),
 * which also takes "0x10", "1e3", " 1", "+1" and "Infinity" (and Infinity then slips past every
 * minimum and maximum). So each route's integer and number parameters are checked as text
 * before validation, and a malformed one is a 400 naming it; the validator still checks the bounds.
 */
import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import { invalidParam } from '../problem.ts';

const FORMS = {
  integer: { pattern: /^-?[0-9]+$/, message: 'must be a whole number written in decimal digits' },
  number: { pattern: /^-?[0-9]+(\.[0-9]+)?$/, message: 'must be a decimal number such as 0.5' },
} as const;

type Form = (typeof FORMS)[keyof typeof FORMS];

export function registerStrictNumbers(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const properties = (route.schema?.querystring as { properties?: Record<string, { type?: unknown; maximum?: number }> } | undefined)
      ?.properties;
    if (!properties) return;
    const numeric: [string, Form, number | undefined][] = [];
    for (const [name, schema] of Object.entries(properties)) {
      if (schema.type === 'integer' || schema.type === 'number') numeric.push([name, FORMS[schema.type], schema.maximum]);
    }
    if (numeric.length === 0) return;
    const check: preValidationHookHandler = async (request: FastifyRequest) => {
      const query = request.query as Record<string, unknown>;
      for (const [name, form, maximum] of numeric) {
        const value = query[name];
        if (value === undefined) continue;
        // A repeated parameter arrives as an array; the validator rejects that itself.
        for (const text of Array.isArray(value) ? value : [value]) {
          if (typeof text !== 'string') continue;
          if (!form.pattern.test(text)) throw invalidParam(name, form.message);
          // Over 300 digits Number() gives Infinity, which the bounds would let through.
          if (!Number.isFinite(Number(text))) throw invalidParam(name, maximum === undefined ? 'is too large' : `must be at most ${maximum}`);
        }
      }
    };
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [check] : [...(Array.isArray(existing) ? existing : [existing]), check];
  });
}
