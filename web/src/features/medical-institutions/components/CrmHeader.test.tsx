import { afterEach, describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { MedicalInstitutionSummary } from '@renkei/contracts';
import { setViewportWidth, testUser } from '../../../test/render-app.tsx';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { CrmHeader } from './CrmHeader.tsx';

const mi = {
  id: '30f4847f-ea22-534d-ba90-2e5a70b82937',
  name: '葵医療センター',
  kana: 'アオイイリョウセンター',
  code: '2210111502',
  running_status: 'running',
  group_medical_institution: false,
  postal_code: '4203080',
  prefecture: 22,
  address: '静岡県静岡市葵区元町1丁目16-19',
  tel: '054-359-6007',
  tags: [],
  departments: [],
  phase: null,
} as unknown as MedicalInstitutionSummary;

function renderHeader(features: string[]) {
  renderInRouter(() => <CrmHeader mi={mi} enabledPhase={false} onError={() => {}} />, {
    api: {},
    user: testUser({ features } as never),
    paths: ['/crms/$id', '/crms/$id/communications'],
  });
}

afterEach(() => setViewportWidth(1280));

describe('the CRM page header', () => {
  it('on a phone puts 「活動を記録」 first, thumb-sized, and opens the form on the institution', async () => {
    setViewportWidth(390);
    renderHeader(['communications']);
    const log = await screen.findByRole('button', { name: '活動を記録' });
    // 44 px (2.75rem): Mantine writes the size as a style of the element.
    expect(log.getAttribute('style')).toMatch(/min-height:\s*calc\(2\.75rem/);
    expect(screen.getByTestId('open-karte').getAttribute('style')).toMatch(/min-height:\s*calc\(2\.75rem/);
    await userEvent.click(log);
    expect(await screen.findByRole('dialog', { name: '活動の記録' })).toBeInTheDocument();
  });

  it('leaves it to the recent-communications card on a desk', async () => {
    renderHeader(['communications']);
    await screen.findByTestId('open-karte');
    expect(screen.queryByRole('button', { name: '活動を記録' })).toBeNull();
  });

  it('offers nothing to log where the tenant has no communications', async () => {
    setViewportWidth(390);
    renderHeader([]);
    await screen.findByTestId('open-karte');
    expect(screen.queryByRole('button', { name: '活動を記録' })).toBeNull();
  });
});
