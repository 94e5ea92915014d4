import { PrintStyle } from '../../../ui/PrintStyle.tsx';

/**
 * A task page (marked `data-tasks-page`) on paper: the list itself, each row whole, without the buttons
 * (add, 戻る, 編集/削除) and page links; the filters stay, saying which tasks these are, and the
 * checkboxes are boxes to tick by hand.
 */
export function TaskListPrintStyle() {
  return (
    <PrintStyle extra='[data-tasks-page] .mantine-Button-root { display: none !important; } [data-testid="task-row"] { break-inside: avoid; }' />
  );
}
