import { reloadedConflictMessage } from '../../errors/mutation-errors.ts';
import { useMutationErrorHandler } from '../../errors/useMutationErrorHandler.ts';
import { useRecordDialogs, type Mutation } from '../../ui/useRecordDialogs.ts';

/**
 * The create/edit dialog and delete confirmation of a labels panel, with its messages; a conflict
 * says the list was reloaded. `onError` is for the panel's other mutations (its order).
 */
export function useLabelDialogs<L extends { id: string; version: number }, V>(mutations: {
  create: Mutation<V>;
  update: Mutation<{ id: string; version: number; body: V }>;
  remove: Mutation<{ id: string; version: number }>;
}) {
  const onError = useMutationErrorHandler({ conflictMessage: reloadedConflictMessage });
  const dialogs = useRecordDialogs<L, V>({
    ...mutations,
    messages: { created: 'ラベルを作成しました', updated: 'ラベルを更新しました', deleted: 'ラベルを削除しました' },
    onError,
  });
  return { ...dialogs, onError };
}

/** A label's choices in their order, as the labels table shows them. */
export const selectionsText = (label: { selections: { label: string; order: number }[] }): string =>
  [...label.selections]
    .sort((a, b) => a.order - b.order)
    .map((s) => s.label)
    .join('、');
