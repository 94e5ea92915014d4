import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureLocalCertificate } from './tls.ts';

describe('local CA and server certificate', () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-tls-'));
    dirs.push(d);
    return path.join(d, 'tls');
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('issues a localhost certificate signed by the local CA, keys readable by the owner only', () => {
    const dir = tmp();
    const c = ensureLocalCertificate(dir);
    const ca = new X509Certificate(c.caCert);
    const leaf = new X509Certificate(c.cert);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkHost('localhost')).toBe('localhost');
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkHost('example.com')).toBeUndefined();
    expect(fs.statSync(path.join(dir, 'ca.key')).mode & 0o077).toBe(0);
    expect(fs.statSync(c.keyPath).mode & 0o077).toBe(0);
    expect(fs.readFileSync(c.caPath, 'utf8')).toBe(c.caCert);
  });

  it('reuses the CA and certificate on the next start', () => {
    const dir = tmp();
    const first = ensureLocalCertificate(dir);
    const second = ensureLocalCertificate(dir);
    expect(second.caCert).toBe(first.caCert);
    expect(second.cert).toBe(first.cert);
    expect(second.key).toBe(first.key);
  });

  it('re-issues the server certificate from the same CA when it nears expiry or misses a host', () => {
    const dir = tmp();
    const first = ensureLocalCertificate(dir);
    const later = ensureLocalCertificate(dir, { now: new Date(Date.now() + 380 * 24 * 3600 * 1000) });
    expect(later.caCert).toBe(first.caCert);
    expect(later.cert).not.toBe(first.cert);
    const withHost = ensureLocalCertificate(dir, { extraHosts: ['renkei.example.jp'] });
    expect(new X509Certificate(withHost.cert).checkHost('renkei.example.jp')).toBe('renkei.example.jp');
    expect(new X509Certificate(withHost.cert).checkIssued(new X509Certificate(first.caCert))).toBe(true);
  });
});
