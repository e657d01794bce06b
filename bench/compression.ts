/**
 * Which compression pays for itself on the API's answers: `node --import tsx bench/compression.ts`
 * writes bench/results/compression.md (and .json). For answers shaped like the API's (a page of
 * transactions: hashes, addresses, amounts; a daily series: days and numbers) of 1 to 128 KiB:
 *
 * - the CPU time of compressing one answer (synchronously, best of several rounds) and the bytes
 *   it saves, per encoding and level;
 * - the server-side time of a whole request (from onRequest to the end of the response: routing,
 *   serialization, compression, writing) through Fastify and @fastify/compress as the API registers
 *   it, one connection over loopback, per configuration, the configurations interleaved so that
 *   the machine's other load falls on all of them alike;
 * - what each byte saved is worth: the time the client no longer waits on a link of 10 and of
 *   100 Mbit/s.
 *
 * An encoding pays for itself on a size where the time it saves on the link exceeds the time it
 * adds on the server.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import compress from '@fastify/compress';
import Fastify from 'fastify';
import { percentile } from './load.ts';
import { loadAverage, RESULTS_DIR, round } from './proc.ts';

const SIZES = [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];

interface Codec {
  name: string;
  encoding: 'identity' | 'gzip' | 'br' | 'deflate';
  compress(body: Buffer): Buffer;
  /** The options @fastify/compress takes for it. */
  plugin: { zlibOptions?: zlib.ZlibOptions; brotliOptions?: zlib.BrotliOptions };
}

const brotli = (quality: number): Codec => ({
  name: `br q${quality}`,
  encoding: 'br',
  compress: (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }),
  plugin: { brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality } } },
});
const gzip = (level: number): Codec => ({
  name: `gzip ${level}`,
  encoding: 'gzip',
  compress: (b) => zlib.gzipSync(b, { level }),
  plugin: { zlibOptions: { level } },
});
const CODECS: Codec[] = [
  { name: 'none', encoding: 'identity', compress: (b) => b, plugin: {} },
  gzip(1),
  gzip(6),
  brotli(1),
  brotli(4),
];

/** A deterministic hex string (hashes and addresses look random to a compressor). */
const hex = (seed: string, length: number) => {
  let out = '';
  for (let i = 0; out.length < length; i++) out += createHash('sha256').update(`${seed}:${i}`).digest('hex');
  return out.slice(0, length);
};

/** A page of an address's transactions, as the feed answers it, of about `bytes`. */
function feedBody(bytes: number): string {
  const items: unknown[] = [];
  const self = `Q${hex('self', 78)}`;
  for (let i = 0; JSON.stringify(items).length < bytes; i++) {
    const out = i % 3 === 0;
    items.push({
      hash: `0x${hex(`tx${i}`, 64)}`,
      block_height: 4_000_000 - i * 7,
      timestamp: 1_767_225_600 - i * 397,
      tx_type: i % 5 === 0 ? 'coinbase' : 'transfer',
      direction: out ? 'out' : 'in',
      from: out ? self : `Q${hex(`from${i % 40}`, 78)}`,
      to: out ? `Q${hex(`to${i}`, 78)}` : self,
      amount: String(1_000_000_000n * BigInt(1 + (i * 7919) % 10_000) + BigInt(i)),
      fee: String(10_000 + (i % 17) * 100),
      status: 'success',
    });
  }
  return JSON.stringify({ items, next_cursor: hex('cursor', 40), total: 736_347 });
}

/** A daily series (an analytics chart), as the analytics routes answer it, of about `bytes`. */
function seriesBody(bytes: number): string {
  const items: unknown[] = [];
  const day0 = Date.UTC(2016, 0, 1);
  for (let i = 0; JSON.stringify(items).length < bytes; i++) {
    items.push({
      day: new Date(day0 + i * 86_400_000).toISOString().slice(0, 10),
      transactions: 40_000 + ((i * 7919) % 9000),
      active_addresses: 12_000 + ((i * 104_729) % 3000),
      volume: String(10n ** 14n + BigInt((i * 999_983) % 10 ** 9)),
      fees_median: String(10_000 + ((i * 31) % 997)),
      block_time_avg: round(60 + ((i * 13) % 50) / 10, 2),
    });
  }
  return JSON.stringify({ chain: 'pow', window: '3650d', items });
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** CPU ms of one compression: the best of 5 rounds of enough repetitions for 20 ms. */
function compressCost(codec: Codec, body: Buffer): { ms: number; bytes: number } {
  const bytes = codec.compress(body).length;
  let reps = 1;
  for (let t = cpuMs(); cpuMs() - t < 5; reps *= 2) for (let i = 0; i < reps; i++) codec.compress(body);
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t = cpuMs();
    for (let i = 0; i < reps; i++) codec.compress(body);
    best = Math.min(best, (cpuMs() - t) / reps);
  }
  return { ms: best, bytes };
}

/** A server answering `body` through @fastify/compress with `codec`'s settings; server-side ms per request. */
async function serve(codec: Codec, bodies: Map<number, string>, syncThreshold?: number) {
  const app = Fastify({ logger: false });
  const times: number[] = [];
  const started = new WeakMap<object, number>();
  await app.register(compress, { global: true, threshold: 1024, encodings: codec.encoding === 'identity' ? ['gzip'] : [codec.encoding], ...codec.plugin, ...(syncThreshold !== undefined ? { syncThreshold } : {}) });
  app.addHook('onRequest', async (request) => void started.set(request, performance.now()));
  app.addHook('onResponse', async (request) => void times.push(performance.now() - started.get(request)!));
  app.get<{ Params: { bytes: string } }>('/:bytes', async (request, reply) => reply.type('application/json; charset=utf-8').send(bodies.get(Number(request.params.bytes))!));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  return { app, port, times };
}

async function requests(port: number, bytes: number, encoding: string, n: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let received = 0;
  for (let i = 0; i < n; i++) {
    await new Promise<void>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: `/${bytes}`, agent, headers: encoding === 'identity' ? {} : { 'accept-encoding': encoding } }, (res) => {
          res.on('data', (chunk: Buffer) => (received += chunk.length));
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  }
  agent.destroy();
  return received / n;
}

const kinds = { feed: feedBody, series: seriesBody } as const;
const loadBefore = loadAverage();
const costs: { kind: string; size: number; codec: string; cpuMs: number; bytes: number; ratio: number }[] = [];
for (const [kind, make] of Object.entries(kinds)) {
  for (const size of SIZES) {
    const body = Buffer.from(make(size));
    for (const codec of CODECS) {
      const c = compressCost(codec, body);
      costs.push({ kind, size: body.length, codec: codec.name, cpuMs: round(c.ms, 4), bytes: c.bytes, ratio: round(c.bytes / body.length, 3) });
    }
  }
}

// Whole requests, server side: every configuration, sizes interleaved in rounds.
const bodies = new Map<number, string>(SIZES.map((s) => [s, feedBody(s)]));
/**
 * As served: @fastify/compress's default compresses answers over 8 KiB (on two cores) as a stream
 * through libuv's thread pool, "sync" compresses every answer in one call (the API's setting).
 */
const SERVED: { name: string; codec: Codec; syncThreshold?: number }[] = [
  { name: 'none', codec: CODECS[0]! },
  ...CODECS.slice(1).map((codec) => ({ name: `${codec.name}, default`, codec })),
  ...CODECS.slice(1).map((codec) => ({ name: `${codec.name}, sync`, codec, syncThreshold: 16 * 1024 * 1024 })),
];
const servers = await Promise.all(SERVED.map(async (config) => ({ ...config, ...(await serve(config.codec, bodies, config.syncThreshold)) })));
const served: { codec: string; size: number; p50: number; p99: number; bytes: number }[] = [];
const perRound = 40;
const rounds = 6;
const samples = new Map<string, { times: number[]; bytes: number }>();
for (let r = 0; r < rounds; r++) {
  for (const size of SIZES) {
    for (const s of servers) {
      const before = s.times.length;
      const bytes = await requests(s.port, size, s.codec.encoding, perRound);
      const key = `${s.name}|${size}`;
      const entry = samples.get(key) ?? { times: [], bytes };
      // The first round warms each path up.
      if (r > 0) entry.times.push(...s.times.slice(before));
      samples.set(key, entry);
    }
  }
}
for (const s of servers) await s.app.close();
for (const [key, entry] of samples) {
  const [codec, size] = key.split('|');
  const sorted = entry.times.sort((a, b) => a - b);
  served.push({ codec: codec!, size: Number(size), p50: round(percentile(sorted, 50), 3), p99: round(percentile(sorted, 99), 3), bytes: Math.round(entry.bytes) });
}

const results = { startedAt: new Date().toISOString(), node: process.version, loadAverage: { before: loadBefore, after: loadAverage() }, costs, served };
writeFileSync(path.join(RESULTS_DIR, 'compression.json'), JSON.stringify(results, null, 2) + '\n');

// Link time saved per answer, ms: bytes saved × 8 / bits per ms.
const linkMs = (savedBytes: number, mbit: number) => (savedBytes * 8) / (mbit * 1000);
const lines: string[] = [];
lines.push('# Compression of API answers: what each encoding costs and saves');
lines.push('');
lines.push(`\`node --import tsx bench/compression.ts\`, ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}; load average ${loadBefore.join(' / ')} → ${results.loadAverage.after.join(' / ')} (a shared machine: CPU times are the best of five rounds; the request times are wall clock, all configurations interleaved).`);
lines.push('');
lines.push('## CPU time of compressing one answer (ms) and the compressed size (share of the body)');
lines.push('');
lines.push(`| body | bytes | ${CODECS.filter((c) => c.encoding !== 'identity').map((c) => c.name).join(' | ')} |`);
lines.push(`|---|---|${CODECS.filter((c) => c.encoding !== 'identity').map(() => '---').join('|')}|`);
for (const kind of Object.keys(kinds)) {
  for (const size of [...new Set(costs.filter((c) => c.kind === kind).map((c) => c.size))]) {
    const row = costs.filter((c) => c.kind === kind && c.size === size && c.codec !== 'none');
    lines.push(`| ${kind} | ${size.toLocaleString('en')} | ${row.map((c) => `${c.cpuMs} ms (${Math.round(c.ratio * 100)} %)`).join(' | ')} |`);
  }
}
lines.push('');
lines.push('## Net time per answer of a page of transactions: link time saved minus CPU added (ms; positive pays)');
lines.push('');
lines.push('| bytes | ' + CODECS.filter((c) => c.encoding !== 'identity').flatMap((c) => [`${c.name} @10 Mbit/s`, `${c.name} @100 Mbit/s`]).join(' | ') + ' |');
lines.push('|---|' + CODECS.filter((c) => c.encoding !== 'identity').flatMap(() => ['---', '---']).join('|') + '|');
for (const size of [...new Set(costs.filter((c) => c.kind === 'feed').map((c) => c.size))]) {
  const row = costs.filter((c) => c.kind === 'feed' && c.size === size && c.codec !== 'none');
  lines.push(`| ${size.toLocaleString('en')} | ${row.flatMap((c) => [10, 100].map((mbit) => round(linkMs(size - c.bytes, mbit) - c.cpuMs, 2))).join(' | ')} |`);
}
lines.push('');
lines.push('## Whole requests through Fastify and @fastify/compress, server side (onRequest to the response\'s end), one connection: p50 / p99 ms (bytes sent)');
lines.push('');
lines.push('"default": @fastify/compress streams answers over 8 KiB through the thread pool; "sync": every answer compressed in one call (the API\'s setting).');
lines.push('');
lines.push(`| body bytes | ${SERVED.map((c) => c.name).join(' | ')} |`);
lines.push(`|---|${SERVED.map(() => '---').join('|')}|`);
for (const size of SIZES) {
  lines.push(`| ${size.toLocaleString('en')} | ${SERVED.map((c) => served.find((s) => s.codec === c.name && s.size === size)).map((s) => (s ? `${s.p50} / ${s.p99} (${s.bytes.toLocaleString('en')})` : '')).join(' | ')} |`);
}
lines.push('');
writeFileSync(path.join(RESULTS_DIR, 'compression.md'), lines.join('\n'));
console.log(lines.join('\n'));
