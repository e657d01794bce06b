/**
 * The dashboard page (docs/dashboard.md): `/` serves its HTML, `/dashboard/<build>/<file>` its
 * scripts, styles and ECharts, all read from the package when the app is built: no build step, no
 * CDN. The page itself needs no key; it calls /api/v1 with the key its user enters (kept in the
 * browser's localStorage).
 *
 * `<build>` is a hash of every file served, so an asset's URL changes whenever its content or the
 * ECharts version does: assets are cached for a year (`immutable`), the HTML is revalidated on every
 * load (ETag), and a page never mixes files of two versions.
 *
 * `demoKey` is set by `quarry demo` only: it is written into the page so that the demo works without
 * typing its key. A real server never hands out a key, so `quarry serve` leaves it unset, and a
 * page that carries a key is never stored by any cache (`no-store`).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../problem.ts';
import { acceptedEncoding, COMPRESSION_THRESHOLD, compressBody, type Encoding } from '../plugins/compression.ts';

export interface DashboardOptions {
  /** A key written into the page (the demo's own key); never set by `quarry serve`. */
  demoKey?: string;
}

/** Where the assets are served from; the build hash follows. */
export const DASHBOARD_PREFIX = '/dashboard';

const ASSETS_DIR = path.join(import.meta.dirname, 'assets');
const ECHARTS_FILE = 'echarts.min.js';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** A year: asset URLs carry the build hash, so a changed file is a new URL. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * What the page may load and call: only this origin. Inline styles are allowed because ECharts
 * writes its tooltips as HTML with style attributes; scripts stay same-origin only (the page's
 * configuration is inlined as JSON data, which is not executed).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  body: Buffer;
  contentType: string;
  etag: string;
  /** The body compressed, per encoding a client accepted (compressed on first demand). */
  encoded: Map<Encoding, Buffer>;
}

const hashOf = (body: Buffer | string) => createHash('sha256').update(body).digest('base64url');

/** ECharts' browser bundle, resolved as a dependency of this package (never a fixed path). */
function echartsBundle(): Buffer {
  const require = createRequire(import.meta.url);
  return readFileSync(require.resolve('echarts/dist/echarts.min.js'));
}

function asset(name: string, body: Buffer): Asset {
  const contentType = CONTENT_TYPES[path.extname(name)];
  if (!contentType) throw new Error(`dashboard asset ${name}: no content type for its extension`);
  return { body, contentType, etag: `"${hashOf(body)}"`, encoded: new Map() };
}

/** Every file the page loads, by name, and the build hash over all of them. */
function loadAssets(): { files: Map<string, Asset>; html: string; build: string } {
  const files = new Map<string, Asset>();
  let html = '';
  for (const name of readdirSync(ASSETS_DIR).sort()) {
    // Hidden files (an editor's, the file system's) are not the page's.
    if (name.startsWith('.')) continue;
    const body = readFileSync(path.join(ASSETS_DIR, name));
    if (name === 'index.html') html = body.toString('utf8');
    else files.set(name, asset(name, body));
  }
  if (!html) throw new Error(`dashboard: ${path.join(ASSETS_DIR, 'index.html')} is missing`);
  files.set(ECHARTS_FILE, asset(ECHARTS_FILE, echartsBundle()));
  const all = createHash('sha256').update(html);
  for (const [name, file] of files) all.update(name).update(file.etag);
  return { files, html, build: all.digest('hex').slice(0, 16) };
}

/** JSON safe inside a <script> element: no `</script>` or `<!--` can end or open anything. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** Sends `file` compressed for the client when it is worth it, each encoding compressed once. */
function sendAsset(request: FastifyRequest, reply: FastifyReply, file: Asset) {
  reply.header('content-type', file.contentType).header('x-content-type-options', 'nosniff').header('vary', 'accept-encoding');
  const encoding = file.body.length >= COMPRESSION_THRESHOLD ? acceptedEncoding(request) : undefined;
  if (encoding === undefined) return reply.header('etag', file.etag).send(file.body);
  let encoded = file.encoded.get(encoding);
  if (!encoded) {
    encoded = compressBody(encoding, file.body.toString('utf8'));
    file.encoded.set(encoding, encoded);
  }
  // A strong ETag names one representation: each encoding has its own.
  return reply.header('etag', `${file.etag.slice(0, -1)}-${encoding}"`).header('content-encoding', encoding).send(encoded);
}

export function registerDashboard(app: FastifyInstance, options: DashboardOptions = {}): void {
  const { files, html, build } = loadAssets();
  const base = `${DASHBOARD_PREFIX}/${build}`;
  const page = asset(
    'index.html',
    Buffer.from(
      // A function, so that no `$` in the key is read as a replacement pattern.
      html.replaceAll('%ASSETS%', base).replace('%CONFIG%', () => scriptJson({ demoKey: options.demoKey ?? null, assets: base })),
      'utf8',
    ),
  );
  // Not part of the API: kept out of the OpenAPI document.
  const schema = { hide: true };

  app.get('/', { schema }, async (request, reply) => {
    reply
      .header('cache-control', options.demoKey ? 'no-store' : 'no-cache')
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('referrer-policy', 'no-referrer');
    return sendAsset(request, reply, page);
  });

  app.get<{ Params: { build: string; file: string } }>(`${DASHBOARD_PREFIX}/:build/:file`, { schema }, async (request, reply) => {
    const file = request.params.build === build ? files.get(request.params.file) : undefined;
    if (!file) {
      // An older page's asset, or no such file: the page must be loaded again.
      throw new ApiError(404, `no dashboard file ${request.params.file} in build ${request.params.build}: reload the page`);
    }
    reply.header('cache-control', IMMUTABLE);
    return sendAsset(request, reply, file);
  });
}
