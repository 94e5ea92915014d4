import { Button, Group, Modal, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { UnmatchedInstitutionRow } from '@renkei/contracts';
import { useState } from 'react';
import { isApiError, fieldErrorsOf } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { InstitutionPicker, type PickedInstitution } from '../../../ui/InstitutionPicker.tsx';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { dataUploadQueries, useDismissUnmatchedInstitution, useMatchInstitution } from '../data-uploads.queries.ts';
import { ListPagination } from '../../../ui/ListPagination.tsx';
import { useReturnFocus } from '../../../ui/useReturnFocus.ts';

type Unmatched = z.infer<typeof UnmatchedInstitutionRow>;

const label = (u: Unmatched) => [u.institution_code, u.institution_name].filter(Boolean).join(' ');

/**
 * The institutions of the lists that matched nothing in the master, with a hand match for each: the
 * rows already imported move to the chosen institution and the next imports match it by themselves.
 * What is no institution at all (「不明」, 「本人」 …) can be set aside so the list keeps only real work,
 * and put back from the second view.
 */
export function UnmatchedInstitutions() {
  const { api } = useServices();
  const [view, setView] = useState<'open' | 'dismissed'>('open');
  const [page, setPage] = useState(1);
  const dismissedView = view === 'dismissed';
  const list = useQuery(dataUploadQueries.unmatched(api, page, dismissedView));
  const [matching, setMatching] = useState<Unmatched | null>(null);
  const dismiss = useDismissUnmatchedInstitution();
  const onError = useMutationErrorHandler();
  const setAside = async (u: Unmatched, dismissed: boolean) => {
    try {
      await dismiss.mutateAsync({
        institution_code: u.institution_code,
        institution_name: u.institution_name,
        dismissed,
      });
      toast.success(
        dismissed
          ? `「${label(u)}」を照合しないものにしました。「照合しないもの」から戻せます。`
          : `「${label(u)}」を照合待ちに戻しました。`,
      );
    } catch (e) {
      onError(e);
    }
  };
  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Title order={3} fz="md">
          照合できなかった医療機関
        </Title>
        <SegmentedControl
          size="xs"
          value={view}
          onChange={(value) => {
            setView(value as 'open' | 'dismissed');
            setPage(1);
          }}
          data={[
            { value: 'open', label: '照合待ち' },
            { value: 'dismissed', label: '照合しないもの' },
          ]}
          aria-label="照合できなかった医療機関の表示"
        />
      </Group>
      <Text size="xs" c="dimmed">
        {dismissedView
          ? '照合しないことにした記載です。行は医療機関不明のまま集計されています。照合すればその医療機関の紹介になります。'
          : '「不明」など医療機関ではない記載は「照合しない」にすると、この一覧から外れます（行は医療機関不明のまま集計され、今後の取り込みでも同じです）。'}
      </Text>
      {list.isError ? (
        <Text c="red">照合できなかった医療機関を読み込めませんでした。</Text>
      ) : !list.data ? null : list.data.data.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="unmatched-empty">
          {dismissedView ? '照合しないことにした記載はありません。' : '照合できなかった医療機関はありません。'}
        </Text>
      ) : (
        <Table striped withTableBorder data-testid="unmatched-institutions">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>医療機関コード</Table.Th>
              <Table.Th>医療機関名</Table.Th>
              <Table.Th ta="right">紹介</Table.Th>
              <Table.Th ta="right">逆紹介</Table.Th>
              <Table.Th>最終日</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data.data.map((u) => (
              <Table.Tr key={`${u.institution_code ?? ''}|${u.institution_name ?? ''}`}>
                <Table.Td>{u.institution_code ?? '—'}</Table.Td>
                <Table.Td>{u.institution_name ?? '—'}</Table.Td>
                <Table.Td ta="right">{u.referral_count}</Table.Td>
                <Table.Td ta="right">{u.reverse_referral_count}</Table.Td>
                <Table.Td>{u.last_date.replaceAll('-', '/')}</Table.Td>
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Button
                      size="compact-sm"
                      variant="light"
                      onClick={() => setMatching(u)}
                      aria-label={`${label(u)}を照合`}
                    >
                      照合
                    </Button>
                    <Button
                      size="compact-sm"
                      variant="subtle"
                      color="gray"
                      disabled={dismiss.isPending}
                      onClick={() => void setAside(u, !dismissedView)}
                      aria-label={dismissedView ? `${label(u)}を照合待ちに戻す` : `${label(u)}を照合しない`}
                    >
                      {dismissedView ? '照合待ちに戻す' : '照合しない'}
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {list.data && (
        <ListPagination
          totalPages={list.data.meta.total_pages}
          value={page}
          onChange={setPage}
          aria-label="照合ページ"
        />
      )}
      {matching && <MatchModal unmatched={matching} onClose={() => setMatching(null)} />}
    </Stack>
  );
}

function MatchModal({ unmatched, onClose }: { unmatched: Unmatched; onClose: () => void }) {
  useReturnFocus(true);
  const [picked, setPicked] = useState<PickedInstitution | null>(null);
  const [error, setError] = useState<string | undefined>();
  const match = useMatchInstitution();
  const onError = useMutationErrorHandler();
  const submit = async () => {
    if (!picked) {
      setError('医療機関を選んでください');
      return;
    }
    try {
      await match.mutateAsync({
        institution_code: unmatched.institution_code,
        institution_name: unmatched.institution_name,
        medical_institution_id: picked.id,
      });
      toast.success(`${label(unmatched)}を${picked.name}に照合しました`);
      onClose();
    } catch (e) {
      if (isApiError(e) && e.status === 422) setError(Object.values(fieldErrorsOf(e))[0] ?? e.message);
      else {
        onClose();
        onError(e);
      }
    }
  };
  return (
    <Modal opened onClose={onClose} title="医療機関の照合" centered>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <Stack gap="sm">
          <Text size="sm">
            リストの「{label(unmatched)}」（紹介 {unmatched.referral_count} 件・逆紹介{' '}
            {unmatched.reverse_referral_count}{' '}
            件）を次の医療機関として扱います。今後の取り込みでも同じ医療機関に照合されます。
          </Text>
          <InstitutionPicker
            value={picked}
            onChange={(value) => {
              setPicked(value);
              setError(undefined);
            }}
            error={error}
          />
          {/* The picker shows its error only while nothing is picked; a refusal of the server shows here. */}
          {picked && error && (
            <Text c="red" size="sm">
              {error}
            </Text>
          )}
          <SaveCancelButtons saving={match.isPending} onCancel={onClose} testId="match-institution-save" />
        </Stack>
      </form>
    </Modal>
  );
}
