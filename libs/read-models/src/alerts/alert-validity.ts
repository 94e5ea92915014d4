import { sql, type RawBuilder } from 'kysely';

/**
 * Whether the alert condition row `c` (of `rm.alert_conditions`) refers to something deleted since it
 * was created: a tag no longer in `rm.tags`, or an area no longer on a live area label. Such a
 * condition is shown with `has_invalid` and is not evaluated. One expression, read by the query
 * service (the list) and the worker (the evaluation), so both say the same.
 */
export const alertConditionInvalid = (c: string): RawBuilder<boolean> => {
  const row = sql.ref(c);
  return sql<boolean>`(
    EXISTS (SELECT 1 FROM jsonb_array_elements_text(${row}.filters -> 'tag_ids') AS ft(id)
             WHERE NOT EXISTS (SELECT 1 FROM rm.tags tg WHERE tg.tenant_id = ${row}.tenant_id AND tg.id = ft.id::uuid))
    OR (${row}.filters ->> 'area' IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM rm.medical_institution_labels l CROSS JOIN LATERAL jsonb_array_elements(l.areas) AS la(area)
           WHERE l.tenant_id = ${row}.tenant_id AND l.component_type = 'area' AND la.area ->> 'id' = ${row}.filters ->> 'area')))`;
};
