import type { FieldError } from '@renkei/contracts';
import { parseVocGroupEvent, stableJson, type VocGroupsReplaced } from '@renkei/domain';
import { invalid, type Decider, type Decision } from '../shared/decider.ts';

export type VocGroupEvent = ReturnType<typeof parseVocGroupEvent>;
export type VocGroup = VocGroupsReplaced['voc_groups'][number];

export interface ReplaceVocGroups {
  groups: readonly { id?: string | undefined; name: string }[];
  /** How many live VOCs each group has (read by the route from the VOCs' own streams). */
  inUse: ReadonlyMap<string, number>;
  newId: () => string;
}

/**
 * The tenant's VOC groups, replaced as a whole list. A known id keeps its group (VOCs refer to it);
 * an entry without a known id is a new group. A group that VOCs use cannot be left out: the 422
 * names it, so it never vanishes from under its VOCs unnoticed.
 */
export const vocGroupsDecider: Decider<VocGroup[], ReplaceVocGroups, VocGroupEvent> = {
  initialState: () => [],
  evolve: (_groups, event) => event.data.voc_groups,
  decide: (current, command): Decision<VocGroupEvent> => {
    const known = new Set(current.map((g) => g.id));
    const errors: FieldError[] = [];
    const names = new Set<string>();
    const ids = new Set<string>();
    const groups = command.groups.map((g, i) => {
      const key = g.name.normalize('NFKC').trim();
      if (names.has(key)) errors.push({ field: `voc_groups.${i}.name`, message: `「${g.name}」が重複しています` });
      names.add(key);
      if (g.id && ids.has(g.id))
        errors.push({ field: `voc_groups.${i}.id`, message: `「${g.name}」のIDが他の行と重複しています` });
      if (g.id) ids.add(g.id);
      return { id: g.id && known.has(g.id) ? g.id : command.newId(), name: g.name };
    });
    const kept = new Set(groups.map((g) => g.id));
    // Every group in use that the list leaves out, in one message: a form shows one message per field.
    const blocked = current.flatMap((group) => {
      const count = command.inUse.get(group.id) ?? 0;
      return !kept.has(group.id) && count > 0 ? [{ name: group.name, count }] : [];
    });
    if (blocked.length > 0)
      errors.push({
        field: 'voc_groups',
        message: `${
          blocked.length === 1
            ? `「${blocked[0]!.name}」は${blocked[0]!.count}件のVOCで使われている`
            : `${blocked.map((b) => `「${b.name}」（${b.count}件）`).join('、')}はVOCで使われている`
        }ため削除できません。先にVOCのグループを変更してください`,
      });
    if (errors.length > 0) return invalid(...errors);
    if (stableJson(groups) === stableJson(current)) return [];
    return [{ type: 'VocGroupsReplaced', data: { voc_groups: groups } }];
  },
  parse: parseVocGroupEvent,
};
