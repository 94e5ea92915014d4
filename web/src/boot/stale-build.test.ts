import { describe, expect, it, vi } from 'vitest';
import { installStaleBuildReload, mainScriptOf } from './stale-build.ts';

const page = (main: string) => `<!doctype html><html lang="ja"><head>
    <script type="module" crossorigin src="/app/assets/${main}"></script>
    <link rel="modulepreload" crossorigin href="/app/assets/react-B8SKf8RM.js">
  </head><body><div id="root"></div></body></html>`;

function setup(over: { online?: boolean; server?: string | Error; storage?: Map<string, string>; now?: number } = {}) {
  const target = new EventTarget();
  const storage = over.storage ?? new Map<string, string>();
  const reload = vi.fn();
  const fetchPage = vi.fn(async () => {
    if (over.server instanceof Error) throw over.server;
    return page(over.server ?? 'main-NEW.js');
  });
  const watcher = installStaleBuildReload({
    target,
    isOnline: () => over.online ?? true,
    currentScript: '/app/assets/main-OLD.js',
    fetchPage,
    reload,
    storage: { getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => void storage.set(k, v) },
    now: () => over.now ?? 1_000_000,
  });
  const chunkFails = async () => {
    target.dispatchEvent(new Event('vite:preloadError', { cancelable: true }));
    return watcher.checking();
  };
  return { chunkFails, reload, fetchPage, storage };
}

describe('a tab of an older build', () => {
  it('reads the main script an index.html names', () => {
    expect(mainScriptOf(page('main-CBx85tqX.js'))).toBe('/app/assets/main-CBx85tqX.js');
    expect(mainScriptOf('<html><script src="/legacy.js"></script></html>')).toBeNull();
  });

  it('reloads once when a chunk fails and the server now has another build', async () => {
    const { chunkFails, reload } = setup();
    expect(await chunkFails()).toBe(true);
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('does not reload when the server still runs this build (the request failed, not the build)', async () => {
    const { chunkFails, reload } = setup({ server: 'main-OLD.js' });
    expect(await chunkFails()).toBe(false);
    expect(reload).not.toHaveBeenCalled();
  });

  it('does not reload offline, where a reload would lose the page itself', async () => {
    const { chunkFails, reload, fetchPage } = setup({ online: false });
    expect(await chunkFails()).toBe(false);
    expect(fetchPage).not.toHaveBeenCalled();
    expect(reload).not.toHaveBeenCalled();
  });

  it('does not reload when the page cannot be fetched', async () => {
    const { chunkFails, reload } = setup({ server: new Error('network') });
    expect(await chunkFails()).toBe(false);
    expect(reload).not.toHaveBeenCalled();
  });

  it('does not reload again within 30 seconds of its last reload', async () => {
    const storage = new Map([['renkei:stale-build-reload-at', String(1_000_000 - 10_000)]]);
    const soon = setup({ storage });
    expect(await soon.chunkFails()).toBe(false);
    expect(soon.reload).not.toHaveBeenCalled();
    const later = setup({ storage, now: 1_000_000 + 25_000 });
    expect(await later.chunkFails()).toBe(true);
  });

  it('checks once for several chunks failing together', async () => {
    const { chunkFails, fetchPage, reload } = setup();
    await Promise.all([chunkFails(), chunkFails(), chunkFails()]);
    expect(fetchPage).toHaveBeenCalledTimes(1);
    expect(reload).toHaveBeenCalledTimes(1);
  });
});
