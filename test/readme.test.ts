/**
 * The README's quick start is run as written, under `dash` (POSIX sh), against a started
 * server: register, wait for the confirmation mail, personal token, partner, the lawful
 * invoice with its PDF and XRechnung. Nothing is changed: the snippets read the port from
 * `PORT`, which the test sets to a free one for the server and the script alike.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, loadEnsureBuilt, root } from './processes.js';

const tools = ['dash', 'curl', 'jq'].filter(
  (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0,
);
// Under CI=true the test fails rather than skips (.ci/run installs them).
if (tools.length > 0 && process.env.CI === 'true')
  throw new Error(`CI=true but the README quick start cannot run: missing ${tools.join(', ')}`);
if (tools.length > 0)
  process.stderr.write(
    `README quick start test skipped: install ${tools.join(', ')} (apt-get install -y ${tools.join(' ')})\n`,
  );

/** The `sh` blocks of the quick start after `npm ci` / `npm start`, and of the invoice walk-through. */
function quickStartScript(): string {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('## Quick start');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 5));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  const script = ['set -e', ...blocks.slice(1)].join('\n');
  // One variable for the port, and a wait that checks the server answering on it is Kontor.
  expect(script).toContain('PORT=${PORT:-3000}');
  expect(script).not.toMatch(/localhost:\d/);
  expect(script).toContain(`grep -q '"service":"kontor"'`);
  return script;
}

describe.skipIf(tools.length > 0)('README quick start', () => {
  it('runs as written under dash', async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-readme-'));
    const env = {
      ...process.env,
      DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: '',
      REDIS_URL: '',
      PORT: String(port),
      LOG_LEVEL: 'warn',
    };
    (await loadEnsureBuilt())();
    const server = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], {
      cwd: dir,
      env,
      stdio: 'ignore',
    });
    try {
      fs.writeFileSync(path.join(dir, 'quick-start.sh'), quickStartScript());
      const run = spawn('dash', ['quick-start.sh'], { cwd: dir, env, stdio: 'pipe' });
      let output = '';
      run.stdout.on('data', (d: Buffer) => (output += d.toString()));
      run.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const code = await new Promise<number | null>((resolve) => run.on('exit', resolve));
      expect(code, output.slice(-2000)).toBe(0);
      expect(output).toContain('"status":"confirmed"');
      expect(output).toContain('"name":"Müller GmbH"');
      expect(output).toMatch(/"status":"FINAL"/);
      expect(fs.readFileSync(path.join(dir, 'invoice.pdf')).subarray(0, 5).toString()).toBe(
        '%PDF-',
      );
      expect(fs.readFileSync(path.join(dir, 'invoice.xml'), 'utf8')).toContain(
        'CrossIndustryInvoice',
      );
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.on('exit', resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
