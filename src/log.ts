/** The process logger (pino). Secrets are redacted wherever they could appear. */
import { pino, type Logger } from 'pino';
import type { LogLevel } from './config/env.ts';

const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'config.apiKeys',
  'config.databaseUrl',
  'config.cursorSecret',
];

// Keys belong in the Authorization header, but a client may put one in the URL by mistake.
const SECRET_QUERY = /([?&](?:api[_-]?key|key|token|access[_-]?token|secret)=)[^&#]*/gi;

function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remoteAddress?: string };
}

export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (req: LoggedRequest) => ({
          method: req.method,
          url: req.url === undefined ? undefined : redactUrl(req.url),
          host: req.host,
          remoteAddress: req.ip ?? req.socket?.remoteAddress,
        }),
      },
    },
    destination ?? process.stdout,
  );
}
