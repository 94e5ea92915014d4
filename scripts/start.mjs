// `pnpm start`: Renkei on its embedded default. Plain Node on purpose: the local CA must exist before
// the process that trusts it starts (NODE_EXTRA_CA_CERTS is read once, at process start).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.resolve(process.env.RENKEI_DATA_DIR ?? path.join(root, '.data'));
const tsx = ['--import', 'tsx'];

/** Newest modification time (ms) of the files the web build reads; tests are not part of the build. */
function newestSource(paths) {
  let newest = 0;
  const visit = (p) => {
    let stat;
    try {
      stat = fs.statSync(p);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(p)) if (name !== 'node_modules') visit(path.join(p, name));
    } else if (!/\.test\.tsx?$/.test(p)) newest = Math.max(newest, stat.mtimeMs);
  };
  for (const p of paths) visit(path.join(root, p));
  return newest;
}

/**
 * Builds the web app when it is missing or older than its sources: after a `git pull`, a start that only
 * checked for a build served the old screens against the new API.
 */
function buildWebIfStale() {
  if (process.env.RENKEI_SKIP_WEB_BUILD === 'true') return;
  const built = path.join(root, 'web/dist/index.html');
  const builtAt = fs.existsSync(built) ? fs.statSync(built).mtimeMs : null;
  const sources = [
    'web/src',
    'web/public',
    'web/index.html',
    'web/vite.config.ts',
    'web/package.json',
    'libs/contracts/src',
    'pnpm-lock.yaml',
  ];
  if (builtAt !== null && newestSource(sources) <= builtAt) return;
  const scripts = JSON.parse(fs.readFileSync(path.join(root, 'web/package.json'), 'utf8')).scripts ?? {};
  if (!scripts.build) return;
  console.log(
    builtAt === null
      ? 'Building the web app (first start only)…'
      : 'The web app changed since its last build: building it again…',
  );
  const r = spawnSync('pnpm', ['--filter', '@renkei/web', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) console.error('The web build failed; the API runs, /app shows a notice until the build works.');
}

function ensureCertificate() {
  const r = spawnSync(process.execPath, [...tsx, 'services/gateway/src/tls-cli.ts', dataDir], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
  const caPath = r.stdout.trim().split('\n').pop();
  // NODE_EXTRA_CA_CERTS takes one file: keep a CA the user already trusts alongside ours.
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (!extra || path.resolve(extra) === caPath) return caPath;
  const bundle = path.join(dataDir, 'tls', 'extra-ca-bundle.pem');
  fs.writeFileSync(bundle, `${fs.readFileSync(extra, 'utf8')}\n${fs.readFileSync(caPath, 'utf8')}`);
  return bundle;
}

buildWebIfStale();
const caFile = ensureCertificate();
const child = spawn(process.execPath, [...tsx, 'services/embedded/src/main.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, RENKEI_DATA_DIR: dataDir, NODE_EXTRA_CA_CERTS: caFile },
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
