import { Button, Checkbox, Popover, Stack } from '@mantine/core';
import { institutionColumnKeys, type InstitutionColumnKey } from '../search-state.ts';
import { columnLabel } from '../labels-ja.ts';

export function ColumnChooser({
  value,
  phaseEnabled,
  onChange,
}: {
  value: InstitutionColumnKey[];
  phaseEnabled: boolean;
  onChange: (v: InstitutionColumnKey[]) => void;
}) {
  const keys = institutionColumnKeys.filter((k) => phaseEnabled || k !== 'phase');
  return (
    <Popover position="bottom-end" shadow="md" withinPortal>
      <Popover.Target>
        <Button variant="default" size="xs" data-testid="column-chooser">
          表示列
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Checkbox.Group
          value={value}
          // Keep the table's order stable whatever order the boxes were ticked in; never zero columns.
          onChange={(v) => v.length > 0 && onChange(keys.filter((k) => v.includes(k)))}
        >
          <Stack gap={6}>
            {keys.map((key) => (
              <Checkbox key={key} value={key} label={columnLabel[key]} disabled={key === 'name'} />
            ))}
          </Stack>
        </Checkbox.Group>
      </Popover.Dropdown>
    </Popover>
  );
}
