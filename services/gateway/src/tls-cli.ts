// Run by scripts/start.mjs before the embedded process: NODE_EXTRA_CA_CERTS is read once at process
// start, so the CA file must exist before the process that needs to trust it is spawned.
import path from 'node:path';
import { ensureLocalCertificate } from './tls.ts';

const dataDir = path.resolve(process.argv[2] ?? process.env.RENKEI_DATA_DIR ?? '.data');
const extraHosts = (process.env.TLS_EXTRA_HOSTS ?? '')
  .split(',')
  .map((h) => h.trim())
  .filter(Boolean);
const certificate = ensureLocalCertificate(path.join(dataDir, 'tls'), { extraHosts });
process.stdout.write(`${certificate.caPath}\n`);
