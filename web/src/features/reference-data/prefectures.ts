import { prefectureNames } from '@renkei/contracts/client';

/** JIS X 0401 prefecture codes and names, in code order. */
export const prefectures: readonly { code: string; name: string }[] = prefectureNames.map((name, i) => ({
  code: String(i + 1).padStart(2, '0'),
  name,
}));

export function prefectureName(code: string | null | undefined): string {
  return prefectures.find((p) => p.code === code)?.name ?? '';
}
