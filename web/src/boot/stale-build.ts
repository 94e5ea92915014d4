/**
 * A tab opened before the server got a new build asks for chunks of its own build, which the new one no longer
 * has: the lazy page or component fails with 「Failed to fetch dynamically imported module」 and the user sees an
 * error page. Vite announces each such failure (`vite:preloadError`); when the server's page now names another
 * main script, this reloads once, so the next screen comes from the new build. Offline, or when the server still
 * runs this tab's build (a failed request, not a new build), nothing reloads: a reload offline would lose the page
 * itself, and the page's own error says what happened.
 */

/** Not twice within this time, whatever the server says: a server that flips between builds cannot loop a tab. */
const minReloadIntervalMs = 30_000;
const lastReloadKey = 'renkei:stale-build-reload-at';

/** The hashed main script an index.html names (`<script type="module" … src="/app/assets/main-….js">`). */
export function mainScriptOf(html: string): string | null {
  for (const tag of html.match(/<script\b[^>]*>/gi) ?? []) {
    if (!/\btype=["']module["']/i.test(tag)) continue;
    const src = /\bsrc=["']([^"']+)["']/i.exec(tag)?.[1];
    if (src) return src;
  }
  return null;
}

interface StaleBuildDeps {
  target: Pick<Window, 'addEventListener'>;
  isOnline: () => boolean;
  /** This tab's main script (from its own document). */
  currentScript: string | null;
  /** The server's index.html now, bypassing every cache. */
  fetchPage: () => Promise<string>;
  reload: () => void;
  storage: Pick<Storage, 'getItem' | 'setItem'> | null;
  now: () => number;
}

/** Resolves true when it reloaded (for tests); listens for the rest of the tab's life. */
export function installStaleBuildReload(deps: StaleBuildDeps): { checking: () => Promise<boolean> } {
  let last: Promise<boolean> = Promise.resolve(false);
  let running = false;
  const check = async (): Promise<boolean> => {
    if (!deps.isOnline() || deps.currentScript === null) return false;
    const lastAt = Number(safeGet(deps.storage, lastReloadKey) ?? 0);
    if (deps.now() - lastAt < minReloadIntervalMs) return false;
    let serverScript: string | null;
    try {
      serverScript = mainScriptOf(await deps.fetchPage());
    } catch {
      return false;
    }
    if (serverScript === null || serverScript === deps.currentScript) return false;
    safeSet(deps.storage, lastReloadKey, String(deps.now()));
    deps.reload();
    return true;
  };
  deps.target.addEventListener('vite:preloadError', () => {
    // One page can fail several chunks at once: one check answers them all.
    if (running) return;
    running = true;
    last = check().finally(() => {
      running = false;
    });
  });
  return { checking: () => last };
}

function safeGet(storage: StaleBuildDeps['storage'], key: string): string | null {
  try {
    return storage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function safeSet(storage: StaleBuildDeps['storage'], key: string, value: string): void {
  try {
    storage?.setItem(key, value);
  } catch {
    // Private modes may refuse storage: the interval then only holds within this page's life.
  }
}

/** Wires the browser's own objects. */
export function watchForNewBuild(): void {
  installStaleBuildReload({
    target: window,
    isOnline: () => navigator.onLine,
    currentScript: document.querySelector('script[type="module"][src]')?.getAttribute('src') ?? null,
    fetchPage: async () => {
      const res = await fetch(import.meta.env.BASE_URL, { cache: 'no-store', credentials: 'same-origin' });
      if (!res.ok) throw new Error(`index.html: ${res.status}`);
      return res.text();
    },
    reload: () => window.location.reload(),
    storage: sessionStorageOrNull(),
    now: () => Date.now(),
  });
}

function sessionStorageOrNull(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}
