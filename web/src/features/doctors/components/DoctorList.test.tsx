import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { DoctorList } from './DoctorList.tsx';

const institutionId = '00000000-0000-4000-8000-000000000001';

describe('doctor list', { timeout: 20_000 }, () => {
  it('shows no count while the doctors load, then the real one', async () => {
    let answer: (doctors: unknown[]) => void = () => {};
    const api = {
      listDoctors: vi.fn(() => new Promise<unknown[]>((resolve) => (answer = resolve))),
    };
    renderInRouter(() => <DoctorList institutionId={institutionId} onError={() => {}} />, { api });
    expect(await screen.findByText('読み込み中…')).toBeInTheDocument();
    // 「医師（0名）」 while loading reads as an institution without doctors.
    expect(screen.getByRole('heading', { name: '医師' })).toBeInTheDocument();
    answer([
      {
        id: '00000000-0000-4000-8000-000000000002',
        division: '内科',
        position: '院長',
        name: '渡辺 誠',
        honorific: '先生',
        email: null,
        phone_number: null,
        profile: null,
        memo: null,
        updated_date: '2026-11-01',
        version: 1,
      },
    ]);
    expect(await screen.findByRole('heading', { name: '医師（1名）' })).toBeInTheDocument();
  });

  it('says so when the doctors cannot be read, instead of an empty list', async () => {
    const api = { listDoctors: vi.fn(async () => Promise.reject(new ApiError(500, 'Internal Server Error'))) };
    renderInRouter(() => <DoctorList institutionId={institutionId} onError={() => {}} />, { api });
    expect(await screen.findByTestId('doctor-list-error')).toHaveTextContent('医師の一覧を読み込めませんでした');
    expect(screen.getByRole('heading', { name: '医師' })).toBeInTheDocument();
    expect(screen.queryByText(/医師はまだ登録されていません/)).toBeNull();
  });
});
