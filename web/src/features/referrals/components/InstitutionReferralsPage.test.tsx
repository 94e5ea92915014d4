import { MantineProvider } from '@mantine/core';
import type { ChartData, HospitalAdmission, Referral } from '@renkei/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  Outlet,
  RouterProvider,
} from '@tanstack/react-router';
import { render, screen, within } from '@testing-library/react';
import { tooltipTestTheme } from '../../../test/tooltip.ts';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices, testUser } from '../../../test/render-app.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import type { SignedInUser } from '../../current-user/signed-in-user.ts';
import { InstitutionReferralsPage } from './InstitutionReferralsPage.tsx';
import { admissionSummary } from './ReferralList.tsx';

const clinic = '00000000-0000-4000-8000-000000000009';
const labels = ['2024年4月', '2024年5月'];
const series = (referrals: number[], reverse: number[] = [0, 0]): ChartData => ({
  labels,
  series: [
    { key: 'referrals', name: '紹介', values: referrals },
    { key: 'admitted', name: '入院', values: [0, 0] },
    { key: 'operated', name: '手術', values: [0, 0] },
    { key: 'reverse_referrals', name: '逆紹介', values: reverse },
  ],
});

const stay: HospitalAdmission = {
  id: '00000000-0000-4000-8000-000000000101',
  admission_date: '2024-04-10',
  discharge_date: '2024-04-20',
  department: '消化器外科（510）',
  icd10_code: 'K359',
  icd10_name: '急性虫垂炎',
  kcode: 'K718-21',
  operation_name: '腹腔鏡下虫垂切除術',
  operation_date: '2024-04-11',
  dpc_code: '060150xx03xxxx',
  dpc_name: 'MDC06 消化器系疾患、肝臓・胆道・膵臓疾患',
  scores: {},
  anesthesia_type: null,
  admission_route_code: null,
  discharge_destination_code: null,
  discharge_outcome_code: null,
};
const referral: Referral = {
  id: '00000000-0000-4000-8000-000000000201',
  referral_date: '2024-04-01',
  patient_id: 'P001',
  doctor_name_to: null,
  doctor_name_from: '山田',
  reason_for_presenting: null,
  referral_department: null,
  referral_department_as_written: null,
  hospital_admissions: [stay],
  reverse_referral: null,
  entered_by_hand: false,
};

const page = (data: Referral[]) => ({
  data,
  meta: { total_count: data.length, page: 1, per_page: 20, total_pages: data.length ? 1 : 0 },
});

function renderPage(chart: ChartData, referrals: Referral[], user: SignedInUser) {
  const api = {
    getSummary: vi.fn(async () => ({ id: clinic, name: 'みなと内科' })),
    medicalInstitutionReferrals: vi.fn(async () => chart),
    listMedicalInstitutionReferrals: vi.fn(async () => page(referrals)),
    listMedicalInstitutionReverseReferrals: vi.fn(async () => page([])),
    listOwnDepartments: vi.fn(async () => []),
    transport: { lastPosition: () => null },
  };
  const base = testServices();
  const services: AppServices = {
    ...base,
    auth: { ...base.auth, getToken: vi.fn(async () => 'tok') },
    api: api as unknown as AppServices['api'],
  };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(currentUserQueries.detail(services.api).queryKey, user);
  const root = createRootRoute({ component: () => <Outlet /> });
  const referralsRoute = createRoute({
    getParentRoute: () => root,
    path: '/crms/$id/referrals',
    component: () => <InstitutionReferralsPage id={clinic} />,
  });
  const crm = createRoute({ getParentRoute: () => root, path: '/crms/$id', component: () => null });
  const uploads = createRoute({ getParentRoute: () => root, path: '/data_uploads', component: () => null });
  const router = createRouter({
    routeTree: root.addChildren([referralsRoute, crm, uploads]),
    history: createMemoryHistory({ initialEntries: [`/app/crms/${clinic}/referrals`] }),
    basepath: '/app',
  });
  render(
    <MantineProvider theme={tooltipTestTheme}>
      <ServicesProvider value={services}>
        <QueryClientProvider client={client}>
          <RouterProvider router={router as never} />
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
  return { api };
}

const owner = testUser({ role: 'owner', features: ['medical_institutions_search', 'data_uploads'] });
const member = testUser({ role: 'member', features: ['medical_institutions_search', 'data_uploads'] });

afterEach(() => vi.unstubAllGlobals());

describe('institution referrals page', () => {
  it('says there is no referral yet, with the way to the uploads for an owner, and no empty chart', async () => {
    renderPage(series([0, 0]), [], owner);
    const empty = await screen.findByTestId('referrals-empty');
    expect(empty).toHaveTextContent(
      'この医療機関からの紹介データはまだありません。データアップロードから紹介リストを取り込むと表示されます',
    );
    expect(within(empty).getByRole('link')).toHaveAttribute('href', '/app/data_uploads');
    expect(screen.queryByTestId('referral-monthly-table')).toBeNull();
    expect(screen.queryByTestId('referrals-export')).toBeNull();
  });

  it('names the uploads without a link for a member, who cannot open them', async () => {
    renderPage(series([0, 0]), [], member);
    const empty = await screen.findByTestId('referrals-empty');
    expect(empty).toHaveTextContent(
      'この医療機関からの紹介データはまだありません。管理者がデータアップロードで紹介リストを取り込むと表示されます',
    );
    expect(empty).not.toHaveTextContent('/data_uploads');
    expect(within(empty).queryByRole('link')).toBeNull();
  });

  it('charts reverse referrals that came without referrals, beside the message', async () => {
    renderPage(series([0, 0], [0, 3]), [], owner);
    await screen.findByTestId('referrals-empty');
    expect(await screen.findByTestId('referral-monthly-table')).toBeInTheDocument();
  });

  it("shows each stay's department, diagnosis, operation and MDC, and exports every referral as CSV", async () => {
    renderPage(series([1, 0]), [referral], owner);
    const row = await screen.findByTestId('referral-admission');
    expect(row).toHaveTextContent(
      '2024/04/10入院〜2024/04/20 消化器外科（510） 急性虫垂炎（K359） 手術 K718-21 腹腔鏡下虫垂切除術（2024/04/11） DPC 060150xx03xxxx（MDC06 消化器系疾患、肝臓・胆道・膵臓疾患）',
    );
    expect(screen.queryByTestId('referrals-empty')).toBeNull();
    expect(screen.getByTestId('referral-monthly-table')).toBeInTheDocument();

    const fetched = vi.fn(
      async (_url: string, _init?: RequestInit) =>
        new Response('紹介日\r\n', { headers: { 'content-disposition': 'attachment; filename="referrals.csv"' } }),
    );
    vi.stubGlobal('fetch', fetched);
    // jsdom has no object URLs and does not navigate: the saving itself is the browser's.
    class TestUrl extends URL {
      static override createObjectURL = vi.fn(() => 'blob:x');
      static override revokeObjectURL = vi.fn();
    }
    vi.stubGlobal('URL', TestUrl);
    const save = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    await userEvent.click(screen.getByTestId('referrals-export'));
    await userEvent.click(await screen.findByText('Shift_JIS（Excel向け）'));
    await vi.waitFor(() => expect(fetched).toHaveBeenCalledTimes(1));
    expect(fetched.mock.calls[0]![0]).toMatch(
      new RegExp(`/medical_institutions/${clinic}/referrals/export\\?encoding=shift_jis$`),
    );
    await vi.waitFor(() => expect(save).toHaveBeenCalledTimes(1));
    save.mockRestore();
  });

  it('shows a 紹介先診療科 that is none of the own departments as the list wrote it, marked as unregistered', async () => {
    const own = { ...referral, id: '00000000-0000-4000-8000-000000000202', hospital_admissions: [] };
    const written = { ...own, id: '00000000-0000-4000-8000-000000000203' };
    renderPage(
      series([2, 0]),
      [
        { ...own, referral_department: { id: '00000000-0000-4000-8000-000000000301', name: '消化器外科' } },
        { ...written, referral_department_as_written: '乳腺外科' },
      ],
      owner,
    );
    const rows = await screen.findAllByTestId('referral-row');
    expect(rows[0]).toHaveTextContent('消化器外科');
    expect(within(rows[0]!).queryByTestId('referral-department-as-written')).toBeNull();
    const marked = within(rows[1]!).getByTestId('referral-department-as-written');
    expect(marked).toHaveTextContent('乳腺外科（未登録）');
    await userEvent.hover(marked);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('自院診療科に登録されていない名称です');
  });

  it('prints with the browser', async () => {
    const print = vi.fn();
    vi.stubGlobal('print', print);
    renderPage(series([1, 0]), [referral], owner);
    await userEvent.click(await screen.findByTestId('print'));
    expect(print).toHaveBeenCalledTimes(1);
  });
});

describe('admission summary', () => {
  it('leaves out what a stay does not have', () => {
    expect(
      admissionSummary({
        ...stay,
        discharge_date: null,
        department: null,
        kcode: null,
        dpc_code: null,
        icd10_name: null,
      }),
    ).toBe('2024/04/10入院 （K359）');
  });
});
