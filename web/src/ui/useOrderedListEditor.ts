import { useEffect, useState, type FormEvent } from 'react';
import { isApiError, type ApiError } from '../api/api-errors.ts';
import { toast } from '../app/toast.ts';

/** One entry as the screen sends it: an id keeps the entry (and what points at it), none adds one. */
interface ListDraft {
  id?: string;
  name: string;
}

/** The messages a form shows on its fields, by field: the name and the entry's other fields `F`. */
type FieldErrors<F extends string> = Partial<Record<'name' | F, string>>;

/** How a 422 names the fields of the entries: `phase_masters.2.name` is list `phase_masters`, field `name`. */
interface ServerFields<F extends string> {
  list: string;
  fields: readonly ['name', ...F[]];
}

/**
 * The server names fields of the whole list (`phase_masters.2.name`); the form shows those of its
 * row. A refusal without a field of this row (too many entries, an id twice) shows on the name.
 */
function rowErrors<F extends string>(
  error: ApiError,
  index: number,
  { list, fields }: ServerFields<F>,
): FieldErrors<F> {
  const out: FieldErrors<F> = {};
  for (const e of error.errors) {
    const [, of, row, field] = /^(\w+)\.(\d+)\.(\w+)$/.exec(e.field) ?? [];
    if (of === list && Number(row) === index && fields.some((f) => f === field)) out[field as 'name' | F] ??= e.message;
  }
  if (!fields.some((f) => out[f]) && error.errors[0]) out.name = error.errors[0].message;
  return out;
}

/** A 422 on a reorder or a delete has no form to show it in. */
function toast422(failure: unknown) {
  if (isApiError(failure) && failure.status === 422) toast.error(failure.errors[0]?.message ?? failure.message);
}

/**
 * The settings panel of an ordered list saved whole: every change (add, edit, reorder, delete) is
 * the whole list through one PUT, sent with the list it was based on (its version is the If-Match).
 * Every failure goes to `onError` (a 409: another owner saved first, the mutation reloads the list);
 * a 422 keeps the form open with the messages of its row, or is toasted on a reorder or a delete.
 */
export function useOrderedListEditor<D extends ListDraft, F extends string>({
  drafts,
  replace,
  validate,
  max,
  messages,
  onError,
  serverFields,
}: {
  /** The list as saved; stable while unchanged, so that the open form keeps what is typed. */
  drafts: readonly D[];
  replace: { mutateAsync: (variables: { next: D[]; basedOn: readonly D[] }) => Promise<unknown> };
  /** The local checks of an entry against the others: no key when it may be saved. */
  validate: (draft: D, others: readonly D[]) => FieldErrors<F>;
  /** How many entries the list may hold. */
  max: number;
  /** The success toasts. */
  messages: { added: string; updated: string; deleted: string; reordered: string };
  onError: (error: unknown) => void;
  serverFields: ServerFields<F>;
}) {
  // `{ index: null }` is the form open for a new entry; `null` is the form closed.
  const [editing, setEditing] = useState<{ index: number | null } | null>(null);
  const [deleting, setDeleting] = useState<number | null>(null);

  const save = async (next: D[], success: string): Promise<unknown> => {
    try {
      await replace.mutateAsync({ next, basedOn: drafts });
      toast.success(success);
      return null;
    } catch (error) {
      onError(error);
      return error;
    }
  };

  const submitForm = async (values: D): Promise<FieldErrors<F> | null> => {
    const index = editing?.index ?? null;
    const others = drafts.filter((_, i) => i !== index);
    const errors = validate(values, others);
    if (Object.keys(errors).length > 0) return errors;
    const draft = { ...values, name: values.name.trim() };
    const next = index === null ? [...drafts, draft] : drafts.map((d, i) => (i === index ? draft : d));
    const failure = await save(next, index === null ? messages.added : messages.updated);
    if (isApiError(failure) && failure.status === 422)
      return rowErrors(failure, index ?? next.length - 1, serverFields);
    setEditing(null);
    return null;
  };

  const move = async (index: number, to: number) => {
    const next = [...drafts];
    const [moved] = next.splice(index, 1);
    next.splice(to, 0, moved!);
    toast422(await save(next, messages.reordered));
  };

  const confirmDelete = async () => {
    if (deleting === null) return;
    const next = drafts.filter((_, i) => i !== deleting);
    toast422(await save(next, messages.deleted));
    setDeleting(null);
  };

  return {
    editing,
    setEditing,
    /** The entry the open form edits; null when it adds one (or is closed). */
    edited: editing && editing.index !== null ? (drafts[editing.index] ?? null) : null,
    deleting,
    setDeleting,
    full: drafts.length >= max,
    submitForm,
    move,
    confirmDelete,
  };
}

/**
 * The form that adds or edits one entry: it starts from the entry (or `blank`) whenever it opens,
 * and `submit` hands the values, with the entry's id, to `onSubmit`, which answers the field errors
 * to show (the form stays open) or null when the entry was saved.
 */
export function useOrderedListForm<D extends ListDraft, F extends string>({
  opened,
  draft,
  blank,
  onSubmit,
}: {
  opened: boolean;
  /** The entry being edited; null when adding. */
  draft: D | null;
  /** A new entry's values; a constant, not a fresh object each render. */
  blank: D;
  onSubmit: (values: D) => Promise<FieldErrors<F> | null>;
}) {
  const [values, setValues] = useState<D>(blank);
  const [errors, setErrors] = useState<FieldErrors<F>>({});
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!opened) return;
    setValues(draft ?? blank);
    setErrors({});
  }, [opened, draft, blank]);

  const set = <K extends keyof D>(field: K, value: D[K]) => setValues((v) => ({ ...v, [field]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    try {
      setErrors((await onSubmit(values)) ?? {});
    } finally {
      setSaving(false);
    }
  };

  return { values, set, errors, saving, submit };
}
