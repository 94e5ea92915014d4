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
