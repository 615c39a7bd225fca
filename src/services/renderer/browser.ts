// One renderer browser: a Chromium process with one page showing the render page (page.ts), driven by
// playwright-core. Its requests reach this server's own origin and nothing else. Playwright is loaded on the first
// launch: a server that never renders never maps it.

import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { RENDER_PAGE_PATH } from './page';
import type { View } from './metatile';

/** The npm package of the bundled browser, named by every message about it. */
export const BUNDLED_PACKAGE = '@sparticuz/chromium';

/**
 * Flags for a headless Chromium without a GPU or a network: WebGL2 through SwiftShader (ANGLE), the GPU thread in
 * the browser process (one process less), nothing phoned home, no throttling of a page nobody looks at.
 * playwright-core adds --headless, --no-sandbox (chromiumSandbox: false), a temporary profile and its own defaults.
 */
export const BROWSER_ARGS = [
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--ignore-gpu-blocklist',
  '--in-process-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-sync',
  '--disable-quic',
  '--disable-extensions',
  '--disable-default-apps',
  '--no-first-run',
  '--no-pings',
  '--mute-audio',
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];

/** Why `setting` (`bundled` or a path) cannot give a browser, found without starting anything; undefined when it may. */
export function browserProblem(setting: string): string | undefined {
  if (setting === 'bundled') {
    let entry: string;
    try {
      entry = require.resolve(BUNDLED_PACKAGE);
    } catch {
      return `render.browser is "bundled" but the npm package ${BUNDLED_PACKAGE} is not installed (npm install ${BUNDLED_PACKAGE}, or set render.browser to a Chromium such as /usr/bin/chromium)`;
    }
    const packed = join(dirname(entry), '..', 'bin', 'chromium.br');
    if (!existsSync(packed)) return `render.browser is "bundled" but ${BUNDLED_PACKAGE} has no ${packed} (reinstall ${BUNDLED_PACKAGE})`;
    return undefined;
  }
  try {
    accessSync(setting, constants.X_OK);
    return undefined;
  } catch {
    return `render.browser ${setting} is not an executable file (install Debian's package chromium, or set render.browser to "bundled" for the npm package ${BUNDLED_PACKAGE})`;
  }
}

/**
 * The executable of `setting`. `bundled` is the package's Chromium unpacked into a folder of its own under the
 * temporary folder, `tilemirror-chromium-<version>` (~2 s, once; later calls and other processes find it there),
 * with the shared libraries the package carries for it (NSS, NSPR, expat: a machine without Debian's chromium
 * may lack them) and a wrapper that points the loader at them: the bundled browser depends on nothing of the
 * system's but the C library. The unpacking goes to a folder of this process and is renamed into place, so two
 * processes starting at once never run a half-written binary. The package is ESM only and runs setup code when
 * loaded: it is asked in a short-lived node process, so this process loads nothing of it.
 */
export async function executableOf(setting: string): Promise<string> {
  if (setting !== 'bundled') return setting;
  const entry = require.resolve(BUNDLED_PACKAGE);
  const version = (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
  const home = join(tmpdir(), `tilemirror-chromium-${version}`);
  const wrapper = join(home, 'chromium-bundled');
  if (existsSync(wrapper)) return wrapper;
  const staging = `${home}.${process.pid}.${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  try {
    const bin = join(dirname(entry), '..', 'bin');
    const script =
      'import(process.argv[1]).then(async (m) => { const p = await m.default.executablePath(); await m.inflate(process.argv[2]); process.stdout.write(p); })';
    const unpacked = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['-e', script, pathToFileURL(entry).href, join(bin, 'al2023.tar.br')],
        { timeout: 120_000, env: { ...process.env, TMPDIR: staging } },
        (err, stdout, stderr) => (err ? reject(new Error(`${BUNDLED_PACKAGE} could not unpack its Chromium: ${stderr.trim() || err.message}`)) : resolve(stdout.trim())),
      );
    });
    if (dirname(unpacked) !== staging) throw new Error(`${BUNDLED_PACKAGE} unpacked its Chromium to ${unpacked}, not to ${staging}`);
    writeFileSync(
      join(staging, 'chromium-bundled'),
      `#!/bin/sh\n# ${BUNDLED_PACKAGE} ${version}: its Chromium with the libraries it carries\nhere=$(dirname "$0")\nLD_LIBRARY_PATH="$here/al2023/lib\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/chromium" "$@"\n`,
      { mode: 0o755 },
    );
    try {
      renameSync(staging, home);
    } catch (err) {
      // Another process put its copy in place first: use that one.
      if (!existsSync(wrapper)) throw err;
    }
    return wrapper;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** What a browser is told to do with requests that leave the server's origin: refused, and reported. */
export type RefusedRequest = (url: string) => void;

/** A screenshot's pixels: a PNG of the metatile's tiles (the margin already cut by the clip). */
export interface Drawn {
  png: Buffer;
  /** Tiles that failed to load, and similar map errors: drawn without, as the viewer would. */
  problems: string[];
}

/**
 * One Chromium process and its page. `draw` renders one view; a crash (of the page or the process) rejects what
 * is in flight and marks the browser dead, for the pool to replace it.
 */
export class RenderBrowser {
  /** The browser process's id (for kill and memory); its helpers are its children. */
  readonly pid: number;
  private dead = false;
  private onDeath: ((why: string) => void)[] = [];
  /** The page's current viewport and pixel ratio (a change is one CDP call before the draw). */
  private metrics = { width: 0, height: 0, scale: 0 };

  private constructor(
    private readonly browser: Browser,
    private readonly page: Page,
    private readonly cdp: CDPSession,
    pid: number,
  ) {
    this.pid = pid;
    const died = (why: string) => {
      if (this.dead) return;
      this.dead = true;
      for (const f of this.onDeath.splice(0)) f(why);
    };
    browser.on('disconnected', () => died('the browser process ended'));
    page.on('crash', () => died('the page crashed'));
  }

  /** Starts `executable` with one page on `origin`'s render page; requests elsewhere are aborted and passed to `refused`. */
  static async launch(executable: string, origin: string, refused: RefusedRequest, timeoutMs: number): Promise<RenderBrowser> {
    // Loaded here, on the first launch (see the head of this file).
    const { chromium } = require('playwright-core') as typeof import('playwright-core');
    const browser = await chromium.launch({ executablePath: executable, headless: true, chromiumSandbox: false, args: BROWSER_ARGS, timeout: timeoutMs });
    try {
      const info = (await (await browser.newBrowserCDPSession()).send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
      const pid = info.processInfo.find((p) => p.type === 'browser')?.id;
      if (pid === undefined) throw new Error('the browser did not tell its process id');
      const context = await browser.newContext({ viewport: { width: 256, height: 256 }, deviceScaleFactor: 1, serviceWorkers: 'block' });
      // The context's route sees the requests of the page and of MapLibre's workers. Routing also turns the
      // browser's HTTP cache off: every request asks this server, which has its own cache.
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (sameOrigin(url, origin)) return route.continue();
        refused(url);
        return route.abort('blockedbyclient');
      });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      // Transparent where the style draws nothing (a style without background), as a tile should be.
      await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
      await page.goto(origin + RENDER_PAGE_PATH, { timeout: timeoutMs });
      await page.waitForFunction(() => (globalThis as { tilemirrorReady?: boolean }).tilemirrorReady === true, undefined, { timeout: timeoutMs, polling: 50 });
      return new RenderBrowser(browser, page, cdp, pid);
    } catch (err) {
      await browser.close().catch(() => undefined);
      throw err;
    }
  }

  get alive(): boolean {
    return !this.dead;
  }

  /** Calls `f` once when the browser dies (at once if it is dead). */
  whenDead(f: (why: string) => void): void {
    if (this.dead) f('the browser had died');
    else this.onDeath.push(f);
  }

  /**
   * Draws `view` of the style at `styleUrl` and captures its clip, the margin left out (a CDP screenshot with a clip,
   * PNG encoded for speed: see docs/decisions/0047). Rejects when the browser dies meanwhile.
   */
  async draw(styleUrl: string, view: View): Promise<Drawn> {
    const died = new Promise<never>((_, reject) => this.whenDead((why) => reject(new Error(why))));
    died.catch(() => undefined);
    return Promise.race([died, this.drawOnce(styleUrl, view)]);
  }

  private async drawOnce(styleUrl: string, view: View): Promise<Drawn> {
    const m = this.metrics;
    if (m.width !== view.width || m.height !== view.height || m.scale !== view.pixelRatio) {
      await this.cdp.send('Emulation.setDeviceMetricsOverride', { width: view.width, height: view.height, deviceScaleFactor: view.pixelRatio, mobile: false });
      this.metrics = { width: view.width, height: view.height, scale: view.pixelRatio };
    }
    const drawn = await this.page.evaluate(
      ([url, v]) => (globalThis as unknown as { tilemirrorDraw(u: string, w: View): Promise<{ problems: string[] }> }).tilemirrorDraw(url, v),
      [styleUrl, view] as const,
    );
    const shot = await this.cdp.send('Page.captureScreenshot', {
      format: 'png',
      clip: { ...view.clip, scale: 1 },
      optimizeForSpeed: true,
      fromSurface: true,
    });
    return { png: Buffer.from(shot.data, 'base64'), problems: drawn.problems };
  }

  /** Ends the process at once (a hung browser answers no CDP call), then lets playwright clean up. */
  kill(): void {
    try {
      process.kill(this.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    void this.browser.close().catch(() => undefined);
  }

  /** Closes the browser in order (its profile folder removed). */
  async close(): Promise<void> {
    this.dead = true;
    await this.browser.close().catch(() => this.kill());
  }
}

function sameOrigin(url: string, origin: string): boolean {
  return url === origin || url.startsWith(`${origin}/`);
}
