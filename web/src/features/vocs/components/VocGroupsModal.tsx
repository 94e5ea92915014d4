import { ActionIcon, Alert, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import type { VocGroup } from '@renkei/contracts';
import { useState } from 'react';
import { ReorderButtons } from '../../../ui/ReorderButtons.tsx';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { useReturnFocus } from '../../../ui/useReturnFocus.ts';

interface Row {
  /** Absent for a group added here. */
  id?: string;
  name: string;
  key: string;
}

/**
 * The tenant's VOC groups edited as one list (saved whole). Leaving out a group that VOCs use is
 * refused by the server with the group named; the message shows above the list, with a way to the
 * VOCs of each group left out (the ones to move to another group first).
 */
export function VocGroupsModal({
  opened,
  groups,
  onClose,
  onSubmit,
  onShowGroup,
}: {
  opened: boolean;
  groups: VocGroup[];
  onClose: () => void;
  onSubmit: (groups: { id?: string; name: string }[]) => Promise<unknown>;
  /** Lists the VOCs of a group (the dialog is closed by the caller; its edits are given up). */
  onShowGroup?: (groupId: string) => void;
}) {
  useReturnFocus(opened);
  // Mounted for each opening: a refetch of the groups while editing never resets the rows.
  const [rows, setRows] = useState<Row[]>(() => groups.map((g) => ({ id: g.id, name: g.name, key: g.id })));
  const { errors, saving, submit } = useFormSubmit({
    values: rows,
    validate: (list) => {
      const out: Record<string, string> = {};
      list.forEach((r, i) => {
        if (!r.name.trim()) out[`voc_groups.${i}.name`] = 'グループ名を入力してください';
      });
      return out;
    },
    save: (list) => onSubmit(list.map((r) => (r.id ? { id: r.id, name: r.name } : { name: r.name }))),
  });

  const move = (from: number, to: number) =>
    setRows((list) => {
      const next = [...list];
      const [row] = next.splice(from, 1);
      next.splice(to, 0, row!);
      return next;
    });

  return (
    <Modal opened={opened} onClose={onClose} title="VOCグループの管理" centered>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          {(errors.voc_groups ?? errors['voc_groups.0.id']) && (
            <Alert color="red" data-testid="voc-groups-error">
              {errors.voc_groups ?? errors['voc_groups.0.id']}
              {errors.voc_groups && onShowGroup && (
                <Group gap="xs" mt="xs">
                  {groups
                    .filter((g) => !rows.some((r) => r.id === g.id))
                    .map((g) => (
                      <Button
                        key={g.id}
                        size="compact-xs"
                        variant="white"
                        color="red"
                        onClick={() => onShowGroup(g.id)}
                      >
                        「{g.name}」のVOCを表示
                      </Button>
                    ))}
                </Group>
              )}
            </Alert>
          )}
          {rows.length === 0 && (
            <Text c="dimmed" size="sm">
              グループはまだありません。
            </Text>
          )}
          {rows.map((row, i) => (
            <Group key={row.key} gap="xs" wrap="nowrap" align="flex-start">
              <ReorderButtons
                name={row.name || '新しいグループ'}
                index={i}
                count={rows.length}
                disabled={saving}
                onMove={move}
              />
              <TextInput
                style={{ flex: 1 }}
                aria-label={`グループ名 ${i + 1}`}
                value={row.name}
                onChange={(e) => {
                  const name = e.currentTarget.value;
                  setRows((list) => list.map((r, j) => (j === i ? { ...r, name } : r)));
                }}
                error={errors[`voc_groups.${i}.name`]}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                size="lg"
                aria-label={`${row.name || '新しいグループ'}を削除`}
                onClick={() => setRows((list) => list.filter((_, j) => j !== i))}
              >
                ×
              </ActionIcon>
            </Group>
          ))}
          <Button
            variant="light"
            onClick={() => setRows((list) => [...list, { name: '', key: crypto.randomUUID() }])}
            disabled={rows.length >= 100}
          >
            グループを追加
          </Button>
          <SaveCancelButtons saving={saving} onCancel={onClose} mt="sm" testId="voc-groups-save" />
        </Stack>
      </form>
    </Modal>
  );
}
