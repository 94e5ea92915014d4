import { Badge, Button, Card, Group, Stack, Text, TextInput } from '@mantine/core';
import type { Communication, CommunicationLabel, LabelValue } from '@renkei/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { useViewport } from '../../../frame/use-viewport.ts';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import {
  communicationQueries,
  communicationTypeLabels,
  useAddComment,
  useDeleteCommunication,
  useToggleLike,
} from '../communications.queries.ts';
import { CommunicationVocs } from '../../vocs/components/CommunicationVocs.tsx';
import { AttachmentList } from './AttachmentList.tsx';
import { CommunicationComment } from './CommunicationComment.tsx';
import { communicationAnchor } from '../communication-anchor.ts';

export const communicationConflictMessage =
  'この活動記録は他の画面で先に更新されました。最新の内容を表示しました。もう一度お試しください。';

/** A calendar date as stored (no time zone to apply). */
const formatDay = (day: string) => day.replaceAll('-', '/');

/** How a deleted label or choice is named next to the value a record keeps of it (docs/decisions.md). */
const deletedMark = '（削除済み）';

/** A label value as one line: a choice by its text (a deleted one marked), a department by its name. */
function labelText(
  value: LabelValue,
  label: CommunicationLabel | undefined,
  departments: ReadonlyMap<string, string>,
): string {
  const choice = (id: string) => {
    const live = label?.selections.find((s) => s.id === id);
    if (live) return live.label;
    const gone = label?.deleted_selections?.find((s) => s.id === id);
    return gone ? `${gone.label}${deletedMark}` : '';
  };
  if (value.text_value !== null) return value.text_value;
  if (value.integer_value !== null) return String(value.integer_value);
  if (value.date_value !== null) return formatDay(value.date_value);
  if (value.time_value !== null) return value.time_value;
  if (value.own_department_id !== null) return departments.get(value.own_department_id) ?? '';
  if (value.selection_id !== null) return choice(value.selection_id);
  return value.selection_ids.map(choice).join('、');
}

/** Whether the live labels name the value (its label and every choice it holds are still there). */
const namedByLive = (value: LabelValue, label: CommunicationLabel | undefined) =>
  label !== undefined &&
  [value.selection_id, ...value.selection_ids].every((id) => id === null || label.selections.some((s) => s.id === id));

/** Who liked a record, as a line beside the button (a phone has no hover for a tooltip): three names, then a count. */
export function likersText(names: readonly string[]): string {
  const shown = names.slice(0, 3).join('、');
  return names.length > 3 ? `${shown} ほか${names.length - 3}人` : shown;
}

/** A value too long for a one-line badge (which cuts it with an ellipsis) is shown whole, as a paragraph. */
const isLongText = (text: string) => text.length > 30 || text.includes('\n');

/** The short fields of spec §3 a record may have, in the order they are read. */
const shortFields = [
  ['category', 'カテゴリ'],
  ['purpose', '目的'],
  ['event_name', 'イベント名'],
  ['person_in_charge_hospital', '先方担当者'],
  ['attendee', '同行者'],
] as const;

/**
 * One record of the timeline: what happened with every field it has (nothing for an empty one), its
 * labels and tasks, then comments and likes; 編集 and 削除 for anyone of the tenant, as the command allows.
 */
export function CommunicationCard({
  communication: c,
  labels,
  currentUserId,
  onEdit,
}: {
  communication: Communication;
  /** The tenant's live labels (the page's list); deleted ones are read here when a value needs them. */
  labels: CommunicationLabel[];
  currentUserId: string;
  /** Opens the edit form (the timeline's own dialog). */
  onEdit?: () => void;
}) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const [comment, setComment] = useState('');
  const [confirming, setConfirming] = useState(false);
  const addComment = useAddComment();
  const toggleLike = useToggleLike();
  const remove = useDeleteCommunication();
  const onError = useMutationErrorHandler();
  const onDeleteError = useMutationErrorHandler({ conflictMessage: communicationConflictMessage });
  const liked = c.likes.some((l) => l.user.id === currentUserId);
  // On a phone, held in one hand: buttons a thumb hits (44 px high), not the desktop's compact ones.
  const phone = useViewport() === 'phone';
  const action = phone ? ({ size: 'md', mih: 44 } as const) : ({ size: 'compact-sm' } as const);
  const liveById = new Map(labels.map((l) => [l.id, l]));
  // Values of deleted labels or choices stay in the record and are shown marked: the list with the
  // deleted ones is read only when a value needs it (one request shared by every card).
  const naming = useQuery({
    ...communicationQueries.namingLabels(api),
    enabled: c.label_values.some((v) => !namedByLive(v, liveById.get(v.label_id))),
  });
  const departments = useQuery({
    ...referenceDataQueries.ownDepartments(api),
    enabled: c.label_values.some((v) => v.own_department_id !== null),
  });
  const labelById = naming.data ? new Map(naming.data.map((l) => [l.id, l])) : liveById;
  const departmentNames = new Map((departments.data ?? []).map((d) => [d.id, d.name]));
  const shownValues = c.label_values.filter((v) => labelById.has(v.label_id));
  const details = shortFields.flatMap(([field, name]) => (c[field] ? [{ name, text: c[field] }] : []));

  const confirmDelete = async () => {
    try {
      await remove.mutateAsync({ id: c.id, version: c.version });
      setConfirming(false);
      toast.success('活動記録を削除しました');
    } catch (error) {
      setConfirming(false);
      // Saved or deleted elsewhere since: the timeline shows the record as it is now.
      if (isApiError(error) && error.status === 409)
        void queryClient.invalidateQueries({ queryKey: communicationQueries.all });
      onDeleteError(error);
    }
  };

  const send = async () => {
    const text = comment.trim();
    if (!text) return;
    try {
      await addComment.mutateAsync({ id: c.id, comment: text });
      setComment('');
    } catch (error) {
      onError(error);
    }
  };

  return (
    // The id is the anchor the CRM page's recent communications link to; the margin keeps the card
    // clear of the sticky header when the link scrolls to it.
    <Card
      withBorder
      padding="sm"
      data-testid="communication-card"
      id={communicationAnchor(c.id)}
      style={{ scrollMarginTop: 'calc(var(--app-shell-header-offset, 0px) + var(--mantine-spacing-md))' }}
    >
      <Stack gap={6}>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs">
            <Badge variant="light">{communicationTypeLabels[c.communication_type]}</Badge>
            <Text fw={600}>{formatDay(c.acted_date)}</Text>
            {c.is_doctor_attended && (
              <Badge color="teal" variant="outline">
                医師面談
              </Badge>
            )}
          </Group>
          <Group gap="xs">
            {c.user && (
              <Text size="sm" c="dimmed">
                担当: {c.user.name}
              </Text>
            )}
            {onEdit && (
              <Button {...action} variant="subtle" onClick={onEdit}>
                編集
              </Button>
            )}
            <Button {...action} variant="subtle" color="red" onClick={() => setConfirming(true)}>
              削除
            </Button>
          </Group>
        </Group>
        {c.medical_institution && (
          <AnchorLink to="/crms/$id" params={{ id: c.medical_institution.id }} fw={500}>
            {c.medical_institution.name}
          </AnchorLink>
        )}
        {details.length > 0 && (
          <Group gap="xs" data-testid="communication-details">
            {details.map((d) => (
              <Text key={d.name} size="sm" style={{ overflowWrap: 'anywhere' }}>
                <Text span size="sm" c="dimmed">
                  {d.name}:
                </Text>{' '}
                {d.text}
              </Text>
            ))}
          </Group>
        )}
        {c.story && <Text style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{c.story}</Text>}
        {c.email && (
          <AnchorLink to="/emails/$id/reports" params={{ id: c.email.id }} search={{ page: 1 }} size="sm">
            配信レポート：{c.email.title}
          </AnchorLink>
        )}
        {c.memo && (
          <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            メモ: {c.memo}
          </Text>
        )}
        {c.other_memo && (
          <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            その他メモ: {c.other_memo}
          </Text>
        )}
        {shownValues.length > 0 && (
          <Group gap="xs">
            {shownValues.map((v) => {
              const label = labelById.get(v.label_id)!;
              const name = `${label.name}${label.is_deleted ? deletedMark : ''}`;
              const text = labelText(v, label, departmentNames);
              return isLongText(text) ? (
                <Text
                  key={v.label_id}
                  size="sm"
                  w="100%"
                  data-testid="communication-label-text"
                  style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
                >
                  <Text span size="sm" c="dimmed">
                    {name}:
                  </Text>{' '}
                  {text}
                </Text>
              ) : (
                <Badge key={v.label_id} variant="default" tt="none" style={{ maxWidth: '100%' }}>
                  {name}: {text}
                </Badge>
              );
            })}
          </Group>
        )}
        {c.tasks.length > 0 && (
          <Stack gap={2}>
            {c.tasks.map((t) => (
              <Text key={t.id} size="sm" td={t.status === 'finished' ? 'line-through' : undefined}>
                タスク: {t.title}
                {t.deadline ? `（期限 ${formatDay(t.deadline)}）` : ''}
                {t.staff ? ` / ${t.staff.name}` : ''}
              </Text>
            ))}
          </Stack>
        )}
        <AttachmentList files={c.attachments} />
        <CommunicationVocs communication={c} />
        <Group gap="xs">
          <Button
            {...action}
            variant={liked ? 'filled' : 'light'}
            aria-pressed={liked}
            loading={toggleLike.isPending}
            onClick={() => toggleLike.mutateAsync({ id: c.id, liked }).catch(onError)}
          >
            いいね {c.likes.length}
          </Button>
          {c.likes.length > 0 && (
            <Text size="xs" c="dimmed" data-testid="communication-likers">
              {likersText(c.likes.map((l) => l.user.name))}
            </Text>
          )}
        </Group>
        {c.comments.map((m) => (
          <CommunicationComment key={m.id} communicationId={c.id} comment={m} currentUserId={currentUserId} />
        ))}
        <Group gap="xs" wrap="nowrap" data-print-hide>
          <TextInput
            style={{ flex: 1 }}
            size={phone ? 'md' : 'sm'}
            placeholder="コメントを書く"
            aria-label="コメント"
            value={comment}
            maxLength={2000}
            onChange={(e) => setComment(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.nativeEvent.isComposing) void send();
            }}
          />
          <Button
            size={phone ? 'md' : 'sm'}
            mih={phone ? 44 : undefined}
            variant="light"
            loading={addComment.isPending}
            onClick={() => void send()}
          >
            送信
          </Button>
        </Group>
      </Stack>
      <ConfirmDeleteModal
        opened={confirming}
        title="活動記録の削除"
        message={`${formatDay(c.acted_date)}の${communicationTypeLabels[c.communication_type]}の記録を削除しますか？`}
        detail="コメントといいねも削除されます。この記録から作ったタスクは残ります。"
        confirmLabel="削除する"
        pending={remove.isPending}
        onClose={() => setConfirming(false)}
        onConfirm={() => void confirmDelete()}
      />
    </Card>
  );
}
