import { Badge } from '@mantine/core';
import type { RunningStatus } from '@renkei/contracts';
import { runningStatusColor, runningStatusLabel } from '../labels-ja.ts';

export function RunningStatusBadge({ status }: { status: RunningStatus }) {
  return (
    <Badge variant="light" color={runningStatusColor[status]} size="sm">
      {runningStatusLabel[status]}
    </Badge>
  );
}
