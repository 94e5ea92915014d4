export interface FacilityType {
  id: number;
  name: string;
  groupId: number;
}
export interface FacilityTypeGroup {
  id: number;
  name: string;
  facilityTypes: FacilityType[];
}

/**
 * No official "facility type group" list exists (domain-research §2.8); this grouping follows 医療法
 * categories and the flags carried by 厚生局 lists. Ids are stable: report filters store them.
 */
export const facilityTypeGroups: readonly FacilityTypeGroup[] = [
  {
    id: 1,
    name: '病院',
    types: [
      [11, '特定機能病院'],
      [12, '地域医療支援病院'],
      [13, '一般病院'],
      [14, '療養型病院'],
      [15, '精神科病院'],
    ],
  },
  {
    id: 2,
    name: '診療所',
    types: [
      [21, '有床診療所'],
      [22, '無床診療所'],
      [23, '在宅療養支援診療所'],
    ],
  },
  { id: 3, name: '歯科診療所', types: [[31, '歯科診療所']] },
  { id: 4, name: '保険薬局', types: [[41, '保険薬局']] },
  {
    id: 5,
    name: '介護施設',
    types: [
      [51, '介護老人保健施設'],
      [52, '介護老人福祉施設'],
      [53, '介護医療院'],
      [54, '訪問看護ステーション'],
      [55, '居宅介護支援事業所'],
    ],
  },
  { id: 9, name: 'その他', types: [[91, 'その他']] },
].map((g) => ({
  id: g.id,
  name: g.name,
  facilityTypes: g.types.map(([id, name]) => ({ id: id as number, name: name as string, groupId: g.id })),
}));

export const facilityTypes: readonly FacilityType[] = facilityTypeGroups.flatMap((g) => g.facilityTypes);
const byName = new Map(facilityTypes.map((t) => [t.name, t]));
const aliases: Record<string, string> = {
  病院: '一般病院',
  診療所: '無床診療所',
  薬局: '保険薬局',
  老健: '介護老人保健施設',
  特養: '介護老人福祉施設',
};

export function findFacilityTypeByName(name: string): FacilityType | undefined {
  const n = name.normalize('NFKC').trim();
  return byName.get(n) ?? byName.get(aliases[n] ?? '');
}
