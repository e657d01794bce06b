/**
 * RFC 9457 problem details: every error the API returns has this shape and the media type
 * `application/problem+json`. `errors` names each offending request parameter.
 */
export interface ParamProblem {
  param: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: ParamProblem[];
}

export const PROBLEM_TYPES = {
  400: { type: '/problems/invalid-parameter', title: 'Invalid parameter' },
  401: { type: '/problems/unauthorized', title: 'Unauthorized' },
  404: { type: '/problems/not-found', title: 'Not found' },
  406: { type: '/problems/not-acceptable', title: 'Not acceptable' },
  408: { type: '/problems/request-timeout', title: 'Request timeout' },
  413: { type: '/problems/too-large', title: 'Request too large' },
  415: { type: '/problems/unsupported-media-type', title: 'Unsupported media type' },
  405: { type: '/problems/method-not-allowed', title: 'Method not allowed' },
  429: { type: '/problems/rate-limited', title: 'Too many requests' },
  431: { type: '/problems/headers-too-large', title: 'Request header fields too large' },
  500: { type: '/problems/internal', title: 'Internal error' },
  503: { type: '/problems/unavailable', title: 'Service unavailable' },
} as const;

export type ProblemStatus = keyof typeof PROBLEM_TYPES;

/** An error the API answers with a chosen status; anything else thrown becomes a plain 500. */
export class ApiError extends Error {
  constructor(
    readonly status: ProblemStatus,
    readonly detail: string,
    readonly errors?: ParamProblem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ApiError';
  }

  toProblem(): ProblemBody {
    return problem(this.status, this.detail, this.errors);
  }
}

export function problem(status: ProblemStatus, detail: string, errors?: ParamProblem[]): ProblemBody {
  const { type, title } = PROBLEM_TYPES[status];
  return errors && errors.length > 0 ? { type, title, status, detail, errors } : { type, title, status, detail };
}

/** 400 naming one parameter. */
export function invalidParam(param: string, message: string): ApiError {
  return new ApiError(400, `${param} ${message}`, [{ param, message }]);
}

export function notFound(detail: string): ApiError {
  return new ApiError(404, detail);
}
