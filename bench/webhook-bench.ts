/**
 * What the webhook benchmarks share (`bench/webhooks.ts`, `bench/webhooks-fairness.ts`): a
 * receiver on 127.0.0.1 that records each event's latency (its timestamp, taken in the write's
 * transaction, to the receiver having the whole request), the app they run on, and the
 * p50/p99/max summary. Not a test.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms`;
};

/** A receiver that answers 204 and hands each event's latency in ms to `record`. */
export async function latencyReceiver(record: (ms: number) => void) {
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString()) as { timestamp: string };
      record(Date.now() - Date.parse(timestamp));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return { receiver, port: (receiver.address() as AddressInfo).port };
}

/**
 * The app on embedded SQLite in a temporary folder, or on `DATABASE_URL` when that names
 * PostgreSQL; the worker polls every second, private targets allowed, no rate limits.
 */
export async function webhookBenchApp(prefix: string, env: Record<string, string> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const databaseUrl = process.env.DATABASE_URL?.startsWith('postgres')
    ? process.env.DATABASE_URL
    : `sqlite:${path.join(dataDir, 'kontor.sqlite')}`;
  const app = await buildApp(
    loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'silent',
      RATE_LIMITS: 'off',
      JOB_POLL_INTERVAL_MS: '1000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      ...env,
    }),
  );
  return { app, dataDir };
}
