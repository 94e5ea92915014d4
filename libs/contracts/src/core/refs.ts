import { z } from 'zod';
import { Id, inputDate } from './zod-helpers.ts';

/** A person as shown next to data they created or changed. */
export const UserRef = z.object({ id: Id, name: z.string() });
export type UserRef = z.infer<typeof UserRef>;

/** An institution as shown inside another record (task, communication, alert …). */
export const MedicalInstitutionRef = z.object({ id: Id, name: z.string() });
export type MedicalInstitutionRef = z.infer<typeof MedicalInstitutionRef>;

/** Code of a public master (診療科, 施設種別, MDC …): short and stable, not a uuid. */
export const MasterCode = z
  .string()
  .trim()
  .min(1, 'コードを入力してください')
  .max(20, 'コードは20文字以内で入力してください');

/** JIS X 0401 prefecture code, `01`–`47`. */
export const PrefectureCode = z
  .string()
  .regex(/^(0[1-9]|[1-3][0-9]|4[0-7])$/, '都道府県コードは01〜47で指定してください');
export type PrefectureCode = z.infer<typeof PrefectureCode>;

/** Encoding of an uploaded or downloaded CSV file. */
export const CsvEncoding = z.enum(['utf-8', 'shift_jis']);
export type CsvEncoding = z.infer<typeof CsvEncoding>;

/** A period filter; both ends inclusive. */
export const Period = z
  .object({
    from: inputDate('開始日はYYYY-MM-DD形式で入力してください'),
    to: inputDate('終了日はYYYY-MM-DD形式で入力してください'),
  })
  .refine((p) => p.from <= p.to, { message: '終了日は開始日以降の日付を指定してください', path: ['to'] });
export type Period = z.infer<typeof Period>;
