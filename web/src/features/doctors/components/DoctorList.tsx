import { Anchor, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { Doctor } from '@renkei/contracts';
import { useServices } from '../../../app/services-context.tsx';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';
import { useRecordDialogs } from '../../../ui/useRecordDialogs.ts';
import {
  doctorQueries,
  useCreateDoctor,
  useDeleteDoctor,
  useUpdateDoctor,
  type DoctorInputValues,
} from '../doctors.queries.ts';
import { DoctorFormModal } from './DoctorFormModal.tsx';

/** Doctors by division, in the server's order (division, then position) within each. */
export function groupByDivision(doctors: Doctor[]): { division: string; doctors: Doctor[] }[] {
  const groups = new Map<string, Doctor[]>();
  for (const d of doctors) {
    const key = d.division || '所属なし';
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  return [...groups].map(([division, list]) => ({ division, doctors: list }));
}

export function DoctorList({ institutionId, onError }: { institutionId: string; onError: (e: unknown) => void }) {
  const { api } = useServices();
  const list = useQuery(doctorQueries.list(api, institutionId));
  const remove = useDeleteDoctor(institutionId);
  const { editing, setEditing, deleting, setDeleting, save, confirmDelete } = useRecordDialogs<
    Doctor,
    DoctorInputValues
  >({
    create: useCreateDoctor(institutionId),
    update: useUpdateDoctor(institutionId),
    remove,
    messages: { created: '医師を登録しました', updated: '医師を更新しました', deleted: '医師を削除しました' },
    onError,
  });

  const doctors = list.data ?? [];
  return (
    <Paper withBorder p="md" data-testid="doctor-list">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3} fz="md">
            {/* No count until the list has come: 「0名」 while loading reads as an institution without doctors. */}
            医師{list.isSuccess && `（${doctors.length}名）`}
          </Title>
          <Button size="xs" variant="light" onClick={() => setEditing({ record: null })} data-testid="add-doctor">
            医師を登録
          </Button>
        </Group>
        {list.isLoading && <Text size="sm">読み込み中…</Text>}
        {list.isError && (
          <Text size="sm" c="red" data-testid="doctor-list-error">
            医師の一覧を読み込めませんでした。時間をおいてページを再読み込みしてください。
          </Text>
        )}
        {list.isSuccess && doctors.length === 0 && (
          <Text size="sm" c="dimmed">
            医師はまだ登録されていません。「医師を登録」から追加してください。
          </Text>
        )}
        {groupByDivision(doctors).map((group) => (
          <Stack key={group.division} gap={4}>
            <Text size="sm" fw={600} c="dimmed">
              {group.division}
            </Text>
            {group.doctors.map((d) => (
              <Paper key={d.id} bg="gray.0" p="xs" data-doctor-name={d.name}>
                <Group justify="space-between" wrap="nowrap" align="flex-start">
                  <Stack gap={0}>
                    <Text size="sm" fw={600}>
                      {d.name} {d.honorific}
                      {d.position && (
                        <Text span size="xs" c="dimmed" ml={6}>
                          {d.position}
                        </Text>
                      )}
                    </Text>
                    {(d.email || d.phone_number) && (
                      <Text size="xs">
                        {d.email && <Anchor href={`mailto:${d.email}`}>{d.email}</Anchor>}{' '}
                        {d.phone_number && <Anchor href={`tel:${d.phone_number}`}>{d.phone_number}</Anchor>}
                      </Text>
                    )}
                    {d.profile && (
                      <Text size="xs" style={{ whiteSpace: 'pre-wrap' }}>
                        {d.profile}
                      </Text>
                    )}
                    {d.memo && (
                      <Text size="xs" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
                        メモ: {d.memo}
                      </Text>
                    )}
                  </Stack>
                  <EditDeleteButtons compact onEdit={() => setEditing({ record: d })} onDelete={() => setDeleting(d)} />
                </Group>
              </Paper>
            ))}
          </Stack>
        ))}
      </Stack>
      <DoctorFormModal
        opened={editing !== null}
        doctor={editing?.record ?? null}
        onClose={() => setEditing(null)}
        onSubmit={save}
      />
      <ConfirmDeleteModal
        opened={deleting !== null}
        title="医師を削除"
        message={<>「{deleting?.name}」を削除しますか？この操作は取り消せません。</>}
        pending={remove.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() => void confirmDelete()}
        testId="confirm-delete-doctor"
      />
    </Paper>
  );
}
