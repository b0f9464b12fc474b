import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import type { Config } from '../../config.js';

/** How the renderer's headless Chromium is started: flags, environment, fonts. */

/** Chromium flags from @sparticuz/chromium that this renderer leaves out, and why. */
export const DROPPED_FLAGS = new Set([
  // One process for everything breaks per-render browser contexts (the browser crashes).
  '--single-process',
  // Would switch off the same-origin policy and mixed-content blocking: with them, a
  // file:// iframe shows /etc/passwd in the PDF.
  '--disable-web-security',
  '--allow-running-insecure-content',
]);

/** Flags for a machine without network: nothing phones home, nothing updates itself. */
export const EXTRA_FLAGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-extensions',
  '--disable-dev-shm-usage',
  '--mute-audio',
];

/** Liberation Sans (SIL OFL), shipped with pdfjs-dist, is the letters' font everywhere. */
const FONT_FILES = [
  'LiberationSans-Regular.ttf',
  'LiberationSans-Bold.ttf',
  'LiberationSans-Italic.ttf',
  'LiberationSans-BoldItalic.ttf',
];

/**
 * A private fontconfig directory adding Liberation Sans to the system fonts, so umlauts, ß and
 * € render the same on every machine, even one without any fonts installed. Returns the
 * directory (the caller removes it).
 */
export async function prepareFonts(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kontor-fonts-'));
  const fonts = path.join(dir, 'fonts');
  await mkdir(fonts);
  const pdfjsDir = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  for (const file of FONT_FILES)
    await copyFile(path.join(pdfjsDir, 'standard_fonts', file), path.join(fonts, file));
  // @sparticuz/chromium unpacks Open Sans here; a last resort on font-less machines.
  const bundled = path.join(os.tmpdir(), 'fonts');
  await writeFile(
    path.join(dir, 'fonts.conf'),
    `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>${fonts}</dir>
  ${existsSync(bundled) ? `<dir>${bundled}</dir>` : ''}
  <cachedir>${path.join(dir, 'cache')}</cachedir>
</fontconfig>
`,
  );
  return dir;
}

/** The browser's environment: only what Chromium needs, never the service's secrets. */
function browserEnv(fontDir: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? os.tmpdir(),
    TMPDIR: os.tmpdir(),
    FONTCONFIG_FILE: path.join(fontDir, 'fonts.conf'),
  };
  for (const name of ['LD_LIBRARY_PATH', 'TZ', 'LANG'])
    if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/**
 * Starts headless Chromium: `CHROMIUM_PATH` if set, else @sparticuz/chromium's binary
 * (unpacked to /tmp on first use), with its flags minus DROPPED_FLAGS plus EXTRA_FLAGS.
 */
export async function launchChromium(config: Config, fontDir: string): Promise<Browser> {
  const [{ default: puppeteer }, { default: chromium }] = await Promise.all([
    import('puppeteer-core'),
    import('@sparticuz/chromium'),
  ]);
  const system = config.chromiumPath !== undefined;
  // No WebGL: nothing here runs scripts, and it spares unpacking SwiftShader.
  chromium.setGraphicsMode = false;
  const executablePath = config.chromiumPath ?? (await chromium.executablePath());
  const args = [
    ...chromium.args.filter(
      (flag) => !DROPPED_FLAGS.has(flag) && !(system && flag.startsWith('--headless')),
    ),
    ...EXTRA_FLAGS,
  ];
  return puppeteer.launch({
    executablePath,
    args,
    // @sparticuz/chromium ships chrome-headless-shell; a system Chromium runs new headless.
    headless: system ? true : 'shell',
    // A pipe instead of a debugging port: no local process can connect to the browser.
    pipe: true,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    // Starting is not rendering: a cold start may take seconds on a busy machine.
    timeout: Math.max(30_000, config.renderTimeoutMs),
    protocolTimeout: config.renderTimeoutMs + 10_000,
    env: browserEnv(fontDir),
  });
}
