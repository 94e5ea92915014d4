import { describe, it } from 'vitest';
import { invalid } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { dataUploadDecider, mappingProfilesDecider } from './data-upload.decider.ts';

const t = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const profile = {
  id: t(1),
  import_type: 'referral' as const,
  name: '電子カルテ出力',
  mapping: { 紹介日: '紹介年月日', 患者ID: 'カルテ番号', 紹介元医療機関名: '紹介元' },
};
const upload = {
  importId: t(9),
  importType: 'referral' as const,
  filename: 'list.csv',
  storedPath: '/data/list.csv',
  mappingProfileId: null,
  profiles: [profile],
};

describe('data upload', () => {
  it('requests the import with the saved mapping it names', () => {
    given(dataUploadDecider)
      .when({ ...upload, mappingProfileId: t(1) })
      .then([
        {
          type: 'ReferralDataImportRequested',
          data: {
            import_id: t(9),
            import_type: 'referral',
            filename: 'list.csv',
            stored_path: '/data/list.csv',
            mapping: profile.mapping,
          },
        },
      ]);
  });

  it('without a mapping, leaves the columns to be matched by name', () => {
    given(dataUploadDecider)
      .when({ ...upload, importType: 'ff1_file' })
      .thenMatches([{ data: { import_type: 'ff1_file', mapping: null } }]);
  });

  it('refuses an unknown mapping, one of the other list, and a mapping for a DPC file', () => {
    given(dataUploadDecider)
      .when({ ...upload, mappingProfileId: t(2) })
      .thenRejected(invalid({ field: 'mapping_profile_id', message: '列の対応付けが見つかりません' }));
    given(dataUploadDecider)
      .when({ ...upload, importType: 'reverse_referral', mappingProfileId: t(1) })
      .thenRejected(invalid({ field: 'mapping_profile_id', message: 'この対応付けは別の種類のリスト用です' }));
    given(dataUploadDecider)
      .when({ ...upload, importType: 'ff1_file', mappingProfileId: t(1) })
      .thenRejected(
        invalid({ field: 'mapping_profile_id', message: '列の対応付けは紹介リストと逆紹介リストにだけ指定できます' }),
      );
  });

  it('accepts the D and EF files (the worker imports them)', () => {
    for (const importType of ['d_file', 'hospital_admission_ef_file', 'outpatient_ef_file'] as const)
      given(dataUploadDecider)
        .when({ ...upload, importType })
        .then([
          {
            type: 'ReferralDataImportRequested',
            data: {
              import_id: upload.importId,
              import_type: importType,
              filename: upload.filename,
              stored_path: upload.storedPath,
              mapping: null,
            },
          },
        ]);
  });
});

describe('mapping profiles', () => {
  it('replaces the list; the same list again changes nothing', () => {
    given(mappingProfilesDecider)
      .when({ profiles: [profile] })
      .then([{ type: 'MappingProfilesReplaced', data: { profiles: [profile] } }]);
    given(mappingProfilesDecider, [{ type: 'MappingProfilesReplaced', data: { profiles: [profile] } }])
      .when({ profiles: [profile] })
      .then([]);
  });

  it('refuses unknown columns and a mapping without a required column', () => {
    given(mappingProfilesDecider)
      .when({ profiles: [{ ...profile, mapping: { 紹介日: 'a', 患者ID: 'b', 紹介元: 'c' } }] })
      .thenRejected(
        invalid(
          { field: 'profiles.0.mapping.紹介元', message: '「紹介元」は取り込める列ではありません' },
          {
            field: 'profiles.0.mapping',
            message: '「紹介元医療機関コード」または「紹介元医療機関名」に対応する列を選んでください',
          },
        ),
      );
  });
});
