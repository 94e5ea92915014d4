import { Badge, Button, Card, Group, Stack, Text, TextInput } from '@mantine/core';
import type { Communication, CommunicationLabel, LabelValue } from '@renkei/contracts';
import { useState } from 'react';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import { communicationTypeLabels, useAddComment, useToggleLike } from '../communications.queries.ts';
import { CommunicationVocs } from '../../vocs/components/CommunicationVocs.tsx';
import { AttachmentList } from './AttachmentList.tsx';
import { CommunicationComment } from './CommunicationComment.tsx';

/** The element id of a record on its timeline (the `#` of a link to it). */
export const communicationAnchor = (id: string) => `communication-${id}`;

/** A calendar date as stored (no time zone to apply). */
const formatDay = (day: string) => day.replaceAll('-', '/');

function labelText(value: LabelValue, label: CommunicationLabel | undefined): string {
  const choice = (id: string) => label?.selections.find((s) => s.id === id)?.label ?? '';
  if (value.text_value !== null) return value.text_value;
  if (value.integer_value !== null) return String(value.integer_value);
  if (value.date_value !== null) return value.date_value;
  if (value.time_value !== null) return value.time_value;
  if (value.selection_id !== null) return choice(value.selection_id);
  return value.selection_ids.map(choice).join('、');
}

/** One record of the timeline: what happened, its labels and tasks, then comments and likes. */
export function CommunicationCard({
  communication: c,
  labels,
  currentUserId,
  onEdit,
}: {
  communication: Communication;
  labels: CommunicationLabel[];
  currentUserId: string;
  /** Opens the edit form (the timeline's own dialog). */
  onEdit?: () => void;
}) {
  const [comment, setComment] = useState('');
  const addComment = useAddComment();
  const toggleLike = useToggleLike();
  const onError = useMutationErrorHandler();
  const liked = c.likes.some((l) => l.user.id === currentUserId);
  const labelById = new Map(labels.map((l) => [l.id, l]));
  // Values of a deleted label are kept in the record but no longer shown (docs/decisions.md).
  const shownValues = c.label_values.filter((v) => labelById.has(v.label_id));

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
            <Text size="sm" c="dimmed">
              {c.user?.name ?? ''}
            </Text>
            {onEdit && (
              <Button size="compact-sm" variant="subtle" onClick={onEdit}>
                編集
              </Button>
            )}
          </Group>
        </Group>
        {c.medical_institution && (
          <AnchorLink to="/crms/$id" params={{ id: c.medical_institution.id }} fw={500}>
            {c.medical_institution.name}
          </AnchorLink>
        )}
        {c.story && <Text style={{ whiteSpace: 'pre-wrap' }}>{c.story}</Text>}
        {c.email && (
          <AnchorLink to="/emails/$id/reports" params={{ id: c.email.id }} search={{ page: 1 }} size="sm">
            配信レポート：{c.email.title}
          </AnchorLink>
        )}
        {c.memo && (
          <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
            メモ: {c.memo}
          </Text>
        )}
        {shownValues.length > 0 && (
          <Group gap="xs">
            {shownValues.map((v) => (
              <Badge key={v.label_id} variant="default" tt="none">
                {labelById.get(v.label_id)!.name}: {labelText(v, labelById.get(v.label_id))}
              </Badge>
            ))}
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
            size="compact-sm"
            variant={liked ? 'filled' : 'light'}
            aria-pressed={liked}
            loading={toggleLike.isPending}
            onClick={() => toggleLike.mutateAsync({ id: c.id, liked }).catch(onError)}
          >
            いいね {c.likes.length}
          </Button>
        </Group>
        {c.comments.map((m) => (
          <CommunicationComment key={m.id} communicationId={c.id} comment={m} currentUserId={currentUserId} />
        ))}
        <Group gap="xs" wrap="nowrap">
          <TextInput
            style={{ flex: 1 }}
            size="sm"
            placeholder="コメントを書く"
            aria-label="コメント"
            value={comment}
            maxLength={2000}
            onChange={(e) => setComment(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.nativeEvent.isComposing) void send();
            }}
          />
          <Button size="sm" variant="light" loading={addComment.isPending} onClick={() => void send()}>
            送信
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
