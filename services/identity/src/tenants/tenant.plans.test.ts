import { describe, expect, it } from 'vitest';
import { plans } from '@renkei/contracts';
import { deriveFeatures, planFeatures } from './tenant.plans.ts';

describe('deriveFeatures', () => {
  it('gives every plan the core features and never email_sender_restricted', () => {
    for (const plan of plans) {
      const features = deriveFeatures(plan);
      expect(features).toContain('medical_institutions_search');
      expect(features).toContain('accounts');
      expect(features).not.toContain('email_sender_restricted');
    }
  });

  it('grows with the plan', () => {
    expect(deriveFeatures('starter')).not.toContain('data_analysis');
    expect(deriveFeatures('basic')).toContain('data_analysis');
    expect(deriveFeatures('basic')).not.toContain('emails');
    expect(deriveFeatures('growth')).toContain('emails');
    expect(deriveFeatures('professional202112')).toContain('diagnosis_analysis');
    expect(planFeatures.growth.length).toBeGreaterThan(planFeatures.starter.length);
  });

  it('applies overrides on top of the plan', () => {
    const features = deriveFeatures('starter', { emails: true, tags: false, email_sender_restricted: true });
    expect(features).toContain('emails');
    expect(features).toContain('email_sender_restricted');
    expect(features).not.toContain('tags');
  });
});
