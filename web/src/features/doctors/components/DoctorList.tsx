import { Anchor, Button, Group, Modal, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { Doctor } from '@renkei/contracts';
import { useState } from 'react';
import { isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
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
  const create = useCreateDoctor(institutionId);
  const update = useUpdateDoctor(institutionId);
  const remove = useDeleteDoctor(institutionId);
  const [editing, setEditing] = useState<{ doctor: Doctor | null } | null>(null);
  const [deleting, setDeleting] = useState<Doctor | null>(null);

  const save = async (body: DoctorInputValues) => {
    try {
      if (editing?.doctor) {
        await update.mutateAsync({ id: editing.doctor.id, version: editing.doctor.version, body });
        toast.success('医師を更新しました');
      } else {
        await create.mutateAsync(body);
        toast.success('医師を登録しました');
      }
      setEditing(null);
    } catch (error) {
      if (!isApiError(error) || error.status !== 422) {
        setEditing(null);
        onError(error);
      }
      throw error;
    }
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync({ id: deleting.id, version: deleting.version });
      toast.success('医師を削除しました');
    } catch (error) {
      onError(error);
    } finally {
      setDeleting(null);
    }
  };

  const doctors = list.data ?? [];
  return (
    <Paper withBorder p="md" data-testid="doctor-list">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3} fz="md">
            医師（{doctors.length}名）
          </Title>
          <Button size="xs" variant="light" onClick={() => setEditing({ doctor: null })} data-testid="add-doctor">
            医師を登録
          </Button>
        </Group>
        {list.isLoading && <Text size="sm">読み込み中…</Text>}
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
                  <Group gap={4} wrap="nowrap">
                    <Button size="compact-xs" variant="subtle" onClick={() => setEditing({ doctor: d })}>
                      編集
                    </Button>
                    <Button size="compact-xs" variant="subtle" color="red" onClick={() => setDeleting(d)}>
                      削除
                    </Button>
                  </Group>
                </Group>
              </Paper>
            ))}
          </Stack>
        ))}
      </Stack>
      <DoctorFormModal
        opened={editing !== null}
        doctor={editing?.doctor ?? null}
        onClose={() => setEditing(null)}
        onSubmit={save}
      />
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title="医師を削除" centered>
        <Stack>
          <Text>「{deleting?.name}」を削除しますか？この操作は取り消せません。</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(null)}>
              キャンセル
            </Button>
            <Button
              color="red"
              loading={remove.isPending}
              onClick={() => void confirmDelete()}
              data-testid="confirm-delete-doctor"
            >
              削除
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
