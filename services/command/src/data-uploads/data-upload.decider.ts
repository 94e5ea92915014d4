import {
  parseMappingProfileEvent,
  parseReferralDataImportEvent,
  type MappingProfileData,
  type ReferralDataImportType,
} from '@renkei/domain';
import { listColumns, type FieldError } from '@renkei/contracts';
import { invalid, type Decider } from '../shared/decider.ts';

export type ReferralDataImportEvent = ReturnType<typeof parseReferralDataImportEvent>;
export type MappingProfilesEvent = ReturnType<typeof parseMappingProfileEvent>;

export interface RequestDataUpload {
  importId: string;
  importType: ReferralDataImportType;
  filename: string;
  storedPath: string;
  mappingProfileId: string | null;
  /** The tenant's saved mappings (a fact read by the route from their stream). */
  profiles: readonly MappingProfileData[];
}

const isList = (type: ReferralDataImportType): type is 'referral' | 'reverse_referral' =>
  type === 'referral' || type === 'reverse_referral';

/** An upload is requested once, with the mapping it will be read with; the worker appends the rest of its stream. */
export const dataUploadDecider: Decider<{ requested: boolean }, RequestDataUpload, ReferralDataImportEvent> = {
  initialState: () => ({ requested: false }),
  evolve: (state, event) => (event.type === 'ReferralDataImportRequested' ? { requested: true } : state),
  decide: (state, command) => {
    if (state.requested) return invalid({ field: 'file', message: 'この取り込みは既に登録されています' });
    let mapping: MappingProfileData['mapping'] | null = null;
    if (command.mappingProfileId !== null) {
      if (!isList(command.importType))
        return invalid({
          field: 'mapping_profile_id',
          message: '列の対応付けは紹介リストと逆紹介リストにだけ指定できます',
        });
      const profile = command.profiles.find((p) => p.id === command.mappingProfileId);
      if (!profile) return invalid({ field: 'mapping_profile_id', message: '列の対応付けが見つかりません' });
      if (profile.import_type !== command.importType)
        return invalid({ field: 'mapping_profile_id', message: 'この対応付けは別の種類のリスト用です' });
      mapping = profile.mapping;
    }
    return [
      {
        type: 'ReferralDataImportRequested',
        data: {
          import_id: command.importId,
          import_type: command.importType,
          filename: command.filename,
          stored_path: command.storedPath,
          mapping,
        },
      },
    ];
  },
  parse: parseReferralDataImportEvent,
};

export interface ReplaceMappingProfiles {
  profiles: readonly MappingProfileData[];
}

/** The tenant's saved column mappings: one stream per tenant holding the whole list. */
export const mappingProfilesDecider: Decider<MappingProfileData[], ReplaceMappingProfiles, MappingProfilesEvent> = {
  initialState: () => [],
  evolve: (_list, event) => event.data.profiles,
  decide: (current, command) => {
    const errors: FieldError[] = [];
    const ids = new Set<string>();
    command.profiles.forEach((profile, i) => {
      if (ids.has(profile.id)) errors.push({ field: `profiles.${i}.id`, message: 'IDが他の行と重複しています' });
      ids.add(profile.id);
      const { columns, required } = listColumns[profile.import_type];
      for (const key of Object.keys(profile.mapping))
        if (!(columns as readonly string[]).includes(key))
          errors.push({ field: `profiles.${i}.mapping.${key}`, message: `「${key}」は取り込める列ではありません` });
      for (const group of required)
        if (!group.some((c: string) => profile.mapping[c]))
          errors.push({
            field: `profiles.${i}.mapping`,
            message: `「${group.join('」または「')}」に対応する列を選んでください`,
          });
    });
    if (errors.length > 0) return invalid(...errors);
    if (JSON.stringify(current) === JSON.stringify(command.profiles)) return [];
    return [{ type: 'MappingProfilesReplaced', data: { profiles: [...command.profiles] } }];
  },
  parse: parseMappingProfileEvent,
};
