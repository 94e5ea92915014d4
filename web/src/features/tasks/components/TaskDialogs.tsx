import { lazy, Suspense } from 'react';
import type { PickedInstitution } from '../../../ui/InstitutionPicker.tsx';
import { LazyConfirmDeleteModal as ConfirmDeleteModal } from '../../../ui/lazy-dialogs.ts';
import type { TaskDialogsState } from '../useTaskDialogs.ts';

// The form loads when first opened, not with the list.
const TaskFormModal = lazy(() => import('./TaskFormModal.tsx').then((m) => ({ default: m.TaskFormModal })));

/** The open dialog of a task list (`useTaskDialogs`): the add/edit form or the delete confirmation. */
export function TaskDialogs({
  dialogs: { editing, setEditing, deleting, setDeleting, save, confirmDelete, deletePending },
  institution = null,
  institutionEditable = false,
  currentUserId,
}: {
  dialogs: TaskDialogsState;
  /** The institution a new task is for (its page's), or the one its form starts from. */
  institution?: PickedInstitution | null;
  /** A new task's institution is picked in its form. */
  institutionEditable?: boolean;
  currentUserId: string;
}) {
  return (
    <Suspense fallback={null}>
      {editing && (
        <TaskFormModal
          task={editing.record}
          institution={institution}
          institutionEditable={institutionEditable}
          currentUserId={currentUserId}
          onClose={() => setEditing(null)}
          onSubmit={save}
        />
      )}
      {deleting && (
        <ConfirmDeleteModal
          opened
          title="タスクを削除"
          message={<>タスク「{deleting.title}」を削除しますか？</>}
          detail={deleting.communication_id ? '元の活動記録は削除されません。' : undefined}
          confirmLabel="削除する"
          pending={deletePending}
          onClose={() => setDeleting(null)}
          onConfirm={() => void confirmDelete()}
          testId="task-delete-confirm"
        />
      )}
    </Suspense>
  );
}
