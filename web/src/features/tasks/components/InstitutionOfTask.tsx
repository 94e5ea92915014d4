import { Anchor, Badge, Group } from '@mantine/core';
import type { Task } from '@renkei/contracts';
import { runningStatusColor, runningStatusLabel } from '../../medical-institutions/labels-ja.ts';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';

/**
 * A task's institution on a list of tasks: its name to its page, its number to call (most follow-ups are
 * a call back; a phone dials it), and its status when it is no longer open, so a task for a clinic that
 * has closed is seen for what it is.
 */
export function InstitutionOfTask({ institution }: { institution: NonNullable<Task['medical_institution']> }) {
  return (
    <Group gap="xs" wrap="wrap">
      <AnchorLink to="/crms/$id" params={{ id: institution.id }} size="sm">
        {institution.name}
      </AnchorLink>
      {institution.running_status !== 'open' && (
        <Badge size="sm" variant="light" color={runningStatusColor[institution.running_status]}>
          {runningStatusLabel[institution.running_status]}
        </Badge>
      )}
      {institution.tel && (
        <Anchor href={`tel:${institution.tel.replace(/[^\d+]/g, '')}`} size="sm" c="dimmed">
          TEL {institution.tel}
        </Anchor>
      )}
    </Group>
  );
}
