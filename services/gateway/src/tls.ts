import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import forge from 'node-forge';

export interface LocalCertificate {
  /** PEM private key of the server certificate. */
  readonly key: string;
  /** PEM server certificate (leaf only; clients trust the CA). */
  readonly cert: string;
  /** PEM certificate of the local CA. */
  readonly caCert: string;
  /** Path of the CA certificate, for NODE_EXTRA_CA_CERTS and for a browser's trust store. */
  readonly caPath: string;
  readonly keyPath: string;
  readonly certPath: string;
}

export interface LocalCertificateOptions {
  /** Host names and IP addresses the server certificate covers besides localhost, 127.0.0.1 and ::1. */
  extraHosts?: readonly string[];
  now?: Date;
}

const DAY = 24 * 60 * 60 * 1000;
// Browsers refuse server certificates valid for more than 398 days.
const serverValidityDays = 397;
const renewWithinDays = 30;

/**
 * The local CA and the `localhost` server certificate of the default install, in `<dir>`
 * (normally `<dataDir>/tls`). Generated on first call, reused afterwards; the server certificate is
 * re-issued by the same CA when it nears expiry or misses a requested host, so a CA a user has
 * trusted keeps working.
 */
export function ensureLocalCertificate(dir: string, options: LocalCertificateOptions = {}): LocalCertificate {
  const now = options.now ?? new Date();
  const hosts = [...new Set(['localhost', '127.0.0.1', '::1', ...(options.extraHosts ?? [])])];
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caKeyPath = path.join(dir, 'ca.key');
  const caPath = path.join(dir, 'ca.pem');
  const keyPath = path.join(dir, 'server.key');
  const certPath = path.join(dir, 'server.pem');

  let caKeyPem: string;
  let caCertPem: string;
  if (fs.existsSync(caKeyPath) && fs.existsSync(caPath)) {
    caKeyPem = fs.readFileSync(caKeyPath, 'utf8');
    caCertPem = fs.readFileSync(caPath, 'utf8');
  } else {
    ({ keyPem: caKeyPem, certPem: caCertPem } = createCa(now));
    writePrivate(caKeyPath, caKeyPem);
    fs.writeFileSync(caPath, caCertPem);
    fs.rmSync(certPath, { force: true });
  }

  if (!(
    fs.existsSync(keyPath) &&
    fs.existsSync(certPath) &&
    serverCertStillGood(fs.readFileSync(certPath, 'utf8'), caCertPem, hosts, now)
  )) {
    const { keyPem, certPem } = createServerCert(caKeyPem, caCertPem, hosts, now);
    writePrivate(keyPath, keyPem);
    fs.writeFileSync(certPath, certPem);
  }

  return {
    key: fs.readFileSync(keyPath, 'utf8'),
    cert: fs.readFileSync(certPath, 'utf8'),
    caCert: caCertPem,
    caPath,
    keyPath,
    certPath,
  };
}

function writePrivate(file: string, content: string): void {
  fs.writeFileSync(file, content, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

// Node's native RSA generation: node-forge's pure-JS generator takes seconds on a busy 2-core machine.
function newKeyPair(): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; keyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return {
    privateKey: forge.pki.privateKeyFromPem(privateKey),
    publicKey: forge.pki.publicKeyFromPem(publicKey),
    keyPem: privateKey,
  };
}

function serialNumber(): string {
  // Positive (leading 0 bit) random 128-bit serial.
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

function createCa(now: Date): { keyPem: string; certPem: string } {
  const { privateKey, publicKey, keyPem } = newKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - DAY);
  cert.validity.notAfter = new Date(now.getTime() + 10 * 365 * DAY);
  const subject = [
    { name: 'commonName', value: 'Renkei Local CA' },
    { name: 'organizationName', value: 'Renkei (local install)' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(privateKey, forge.md.sha256.create());
  return { keyPem, certPem: forge.pki.certificateToPem(cert) };
}

function createServerCert(
  caKeyPem: string,
  caCertPem: string,
  hosts: readonly string[],
  now: Date,
): { keyPem: string; certPem: string } {
  const caKey = forge.pki.privateKeyFromPem(caKeyPem);
  const caCert = forge.pki.certificateFromPem(caCertPem);
  const { publicKey, keyPem } = newKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - DAY);
  cert.validity.notAfter = new Date(now.getTime() + serverValidityDays * DAY);
  cert.setSubject([{ name: 'commonName', value: 'localhost' }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: hosts.map((h) => (isIp(h) ? { type: 7, ip: h } : { type: 2, value: h })),
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { keyPem, certPem: forge.pki.certificateToPem(cert) };
}

function isIp(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

function serverCertStillGood(certPem: string, caCertPem: string, hosts: readonly string[], now: Date): boolean {
  try {
    const cert = forge.pki.certificateFromPem(certPem);
    const ca = forge.pki.certificateFromPem(caCertPem);
    if (!ca.verify(cert)) return false;
    if (cert.validity.notAfter.getTime() - now.getTime() < renewWithinDays * DAY) return false;
    const san = cert.getExtension('subjectAltName') as { altNames?: { value?: string; ip?: string }[] } | null;
    const covered = new Set((san?.altNames ?? []).map((n) => n.ip ?? n.value));
    return hosts.every((h) => covered.has(h));
  } catch {
    return false;
  }
}
