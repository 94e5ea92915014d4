// `pnpm start`: Renkei on its embedded default. Plain Node on purpose: the local CA must exist before
// the process that trusts it starts (NODE_EXTRA_CA_CERTS is read once, at process start).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.resolve(process.env.RENKEI_DATA_DIR ?? path.join(root, '.data'));
const tsx = ['--import', 'tsx'];

function buildWebIfMissing() {
  if (fs.existsSync(path.join(root, 'web/dist/index.html'))) return;
  if (process.env.RENKEI_SKIP_WEB_BUILD === 'true') return;
  const scripts = JSON.parse(fs.readFileSync(path.join(root, 'web/package.json'), 'utf8')).scripts ?? {};
  if (!scripts.build) return;
  console.log('Building the web app (first start only)…');
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

buildWebIfMissing();
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
