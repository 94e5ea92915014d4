import { useState, type FormEvent } from 'react';
import { fieldErrorsOf } from '../api/api-errors.ts';

/**
 * The submit of a dialog form: the local check first (ideally the contract's own schema, so its
 * messages are the server's), then `save`; a 422's field errors land on their fields. Any other
 * failure is the caller's to report (its `save` does, before rethrowing).
 */
export function useFormSubmit<V>({
  values,
  save,
  validate,
}: {
  values: V;
  save: (values: V) => Promise<unknown>;
  validate?: (values: V) => Record<string, string>;
}) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const local = validate?.(values) ?? {};
    setErrors(local);
    if (Object.keys(local).length > 0) return;
    setSaving(true);
    try {
      await save(values);
    } catch (error) {
      setErrors(fieldErrorsOf(error));
    } finally {
      setSaving(false);
    }
  };

  return { errors, setErrors, saving, submit };
}
