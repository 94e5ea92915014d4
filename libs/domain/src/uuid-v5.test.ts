import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { medicalInstitutionCrmKey } from './medical-institutions/medical-institution.events.ts';
import { tagGroupId } from './tags/tag.events.ts';
import { uuidV5 } from './uuid-v5.ts';

it('matches the RFC 9562 example (DNS namespace, www.example.com)', () => {
  expect(uuidV5('6ba7b8109dad11d180b400c04fd430c8', 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
});

it('derives the ids stored before the helper existed unchanged', () => {
  expect(medicalInstitutionCrmKey('x', 'y')).toBe('c45905b0-ac2d-5fd9-85e4-a7714d49985d');
  expect(tagGroupId('t', '地域')).toBe('1e233838-52be-5313-8168-bd96e13f283b');
});

it('gives what a fresh SHA-1 of namespace and name gives, for names longer than its buffer and of any script', () => {
  const reference = (namespace: string, name: string) => {
    const digest = createHash('sha1').update(Buffer.from(namespace, 'hex')).update(name, 'utf8').digest();
    digest[6] = (digest[6]! & 0x0f) | 0x50;
    digest[8] = (digest[8]! & 0x3f) | 0x80;
    const hex = digest.subarray(0, 16).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
  const ns = '3b0c5e1d9a7f4c2e8d6b4a2f1e3c5d7b';
  for (const name of ['', 'a', '連携クリニック\u0000referral:1', 'x'.repeat(300), '紹'.repeat(400), 'short again'])
    expect(uuidV5(ns, name)).toBe(reference(ns, name));
});
