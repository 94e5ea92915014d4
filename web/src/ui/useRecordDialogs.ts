import { useState } from 'react';
import { isApiError } from '../api/api-errors.ts';
import { toast } from '../app/toast.ts';

interface Versioned {
  id: string;
  version: number;
}

export interface Mutation<V> {
  mutateAsync: (variables: V) => Promise<unknown>;
}

/**
 * The create/edit dialog and delete confirmation of a list of versioned records: saving creates or
 * updates (with the record's version), only a 422 keeps the form open (it rethrows so the form shows
 * the messages on its fields), and every other failure closes the dialog and goes to `onError`.
 */
export function useRecordDialogs<R extends Versioned, B>({
  create,
  update,
  remove: removeMutation,
  messages,
  onError,
}: {
  create: Mutation<B>;
  update: Mutation<{ id: string; version: number; body: B }>;
  remove: Mutation<{ id: string; version: number }>;
  messages: { created: string; updated: string; deleted: string };
  onError: (error: unknown) => void;
}) {
  // `{ record: null }` is the dialog open for a new record; `null` is the dialog closed.
  const [editing, setEditing] = useState<{ record: R | null } | null>(null);
  const [deleting, setDeleting] = useState<R | null>(null);

  const save = async (body: B) => {
    try {
      if (editing?.record) {
        await update.mutateAsync({ id: editing.record.id, version: editing.record.version, body });
        toast.success(messages.updated);
      } else {
        await create.mutateAsync(body);
        toast.success(messages.created);
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

  const remove = async (record: R) => {
    try {
      await removeMutation.mutateAsync({ id: record.id, version: record.version });
      toast.success(messages.deleted);
    } catch (error) {
      onError(error);
    } finally {
      setDeleting(null);
    }
  };

  const confirmDelete = async () => {
    if (deleting) await remove(deleting);
  };

  return { editing, setEditing, deleting, setDeleting, save, remove, confirmDelete };
}
