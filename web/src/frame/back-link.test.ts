import { describe, expect, it } from 'vitest';
import { resolveBackLink } from './back-link.ts';

describe('back-link rules (spec §2)', () => {
  it.each([
    ['/crms/12/tasks', '/crms/12'],
    ['/crms/12/referrals', '/crms/12'],
    ['/crms/12/communications', '/crms/12'],
    ['/emails/5/reports', '/emails'],
    ['/emails/new', '/emails'],
    ['/emails/5/edit', '/emails?status=unsent'],
    ['/labels/medical_institutions/import', '/labels?tab=MedicalInstitutionLabels'],
    ['/labels/communications/import', '/labels?tab=CommunicationLabels'],
  ])('%s goes back to %s', (path, expected) => {
    expect(resolveBackLink(path, {})).toBe(expected);
  });

  it('has no back link elsewhere', () => {
    expect(resolveBackLink('/tags', {})).toBeNull();
    expect(resolveBackLink('/crms/12', {})).toBeNull();
  });

  it('lets an explicit backLink parameter override the rules', () => {
    expect(resolveBackLink('/crms/12/tasks', { backLink: '/tasks?status=finished' })).toBe('/tasks?status=finished');
    expect(resolveBackLink('/tags', { backLink: '/profile' })).toBe('/profile');
  });

  it('ignores a backLink that leaves the app', () => {
    expect(resolveBackLink('/crms/12/tasks', { backLink: '//evil.example' })).toBe('/crms/12');
    expect(resolveBackLink('/tags', { backLink: 'https://evil.example' })).toBeNull();
  });
});
