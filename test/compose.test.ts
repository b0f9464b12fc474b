/**
 * `compose.yaml` cannot be started here (no Docker), so what can be checked without it is:
 * every replica's environment is a configuration Kontor starts with, the replicas are reached
 * only through the proxy, and the proxy's Caddyfile balances over exactly those replicas.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config.js';

const root = path.resolve(import.meta.dirname, '..');

interface Service {
  image?: string;
  build?: string;
  ports?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
}
const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'), {
  merge: true,
}) as { services: Record<string, Service> };
const caddyfile = fs.readFileSync(path.join(root, 'Caddyfile'), 'utf8');

const replicas = Object.entries(compose.services).filter(([, s]) => s.build === '.');

/** Compose's `${NAME:-default}` and `${NAME:?message}` with nothing set in the shell. */
function interpolate(value: string): string {
  return value.replace(
    /\$\{(\w+)(?::([-?])([^}]*))?\}/g,
    (_m, name: string, kind?: string, rest?: string) =>
      name === 'APP_SECRET' ? 'x'.repeat(64) : kind === '-' ? (rest ?? '') : '',
  );
}

describe('compose.yaml', () => {
  it('runs two replicas, each with a configuration Kontor starts with', () => {
    expect(replicas.map(([name]) => name)).toEqual(['kontor-1', 'kontor-2']);
    for (const [, service] of replicas) {
      const env = Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(v)]),
      );
      const config = loadConfig(env);
      expect(config.trustProxy).toBe(1);
      expect(config.database.kind).toBe('postgres');
      expect(config.redisUrl).toBe('redis://valkey:6379');
    }
  });

  it('publishes only the proxy, on the port of PUBLIC_URL', () => {
    const published = Object.entries(compose.services).filter(([, s]) => s.ports !== undefined);
    expect(published.map(([name, s]) => [name, s.ports])).toEqual([['caddy', ['8080:8080']]]);
    const publicUrl = interpolate(replicas[0]![1].environment!.PUBLIC_URL!);
    expect(new URL(publicUrl).port).toBe('8080');
    expect(compose.services.caddy!.volumes).toContain('./Caddyfile:/etc/caddy/Caddyfile:ro');
  });

  it('the Caddyfile balances over every replica and checks each one’s /ready', () => {
    expect(caddyfile).toMatch(/^:8080 \{$/m);
    const upstreams = /^\s*reverse_proxy ([^{]+)\{/m.exec(caddyfile)?.[1]?.trim().split(/\s+/);
    expect(upstreams).toEqual(replicas.map(([name]) => `${name}:3000`));
    expect(caddyfile).toMatch(/^\s*health_uri \/ready$/m);
    // Caddy passes on X-Forwarded-For only from proxies listed here; the replicas trust one hop.
    expect(caddyfile).not.toMatch(/^\s*trusted_proxies/m);
  });

  it('uses permissively licensed images at current majors', () => {
    const images = Object.values(compose.services).flatMap((s) => (s.image ? [s.image] : []));
    expect(images).toEqual(expect.arrayContaining(['caddy:2', 'postgres:18', 'valkey/valkey:8']));
    expect(images.filter((image) => /^redis(:|$)/.test(image))).toEqual([]);
  });
});
