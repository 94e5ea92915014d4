/**
 * Clinical facts the demo generator picks from, written for this project. K codes, レセ電 codes and
 * names are those of the 診療報酬点数表 / 支払基金 医科診療行為マスター (令和6年度); ICD-10 codes are WHO's;
 * which ones appear, the disease names (short forms) and the DPC code shapes are editorial demo choices.
 */
interface DemoOperation {
  kcode: string;
  receCode: string;
  name: string;
  /** L008 閉鎖循環式全身麻酔 item used with it, or null for local anesthesia. */
  anesthesia: { receCode: string; name: string } | null;
}

export interface DemoDisease {
  icd10: string;
  name: string;
  /** First six digits of the DPC code (MDC + 分類). */
  dpc6: string;
  /** Share of admissions for it that are operated. */
  operatedShare: number;
  operations: readonly DemoOperation[];
}

export interface DemoDepartment {
  name: string;
  /** 様式1 3-digit 診療科コード (legacy list, domain research §2.3(c)). */
  code: string;
  /** Relative share of referrals. */
  weight: number;
  /** Share of referrals that end in an admission. */
  admissionShare: number;
  diseases: readonly DemoDisease[];
  purposes: readonly string[];
}

const general4 = { receCode: '150333210', name: '閉鎖循環式全身麻酔４' };
const general5 = { receCode: '150233410', name: '閉鎖循環式全身麻酔５' };
const general3 = { receCode: '150333010', name: '閉鎖循環式全身麻酔３' };

const op = (kcode: string, receCode: string, name: string, anesthesia: DemoOperation['anesthesia']): DemoOperation => ({
  kcode,
  receCode,
  name,
  anesthesia,
});

export const demoDepartments: readonly DemoDepartment[] = [
  {
    name: '循環器内科',
    code: '350',
    weight: 14,
    admissionShare: 0.35,
    purposes: ['精査・加療依頼', '心臓カテーテル検査依頼', '胸痛精査', '心不全加療'],
    diseases: [
      {
        icd10: 'I209',
        name: '狭心症',
        dpc6: '050050',
        operatedShare: 0.7,
        operations: [op('K5463', '150375110', '経皮的冠動脈形成術（その他のもの）', null)],
      },
      {
        icd10: 'I214',
        name: '急性心内膜下心筋梗塞',
        dpc6: '050030',
        operatedShare: 0.8,
        operations: [
          op('K5461', '150374910', '経皮的冠動脈形成術（急性心筋梗塞に対するもの）', null),
          op('K5491', '150375210', '経皮的冠動脈ステント留置術（急性心筋梗塞に対するもの）', null),
        ],
      },
      {
        icd10: 'I500',
        name: 'うっ血性心不全',
        dpc6: '050130',
        operatedShare: 0.05,
        operations: [op('K5972', '150140210', 'ペースメーカー移植術（経静脈電極の場合）', null)],
      },
      {
        icd10: 'I480',
        name: '発作性心房細動',
        dpc6: '050070',
        operatedShare: 0.6,
        operations: [
          op('K5951', '150346710', '経皮的カテーテル心筋焼灼術（心房中隔穿刺又は心外膜アプローチを伴うもの）', null),
        ],
      },
    ],
  },
  {
    name: '消化器内科',
    code: '500',
    weight: 16,
    admissionShare: 0.25,
    purposes: ['内視鏡検査依頼', '便潜血陽性精査', '肝機能障害精査', '精査・加療依頼'],
    diseases: [
      {
        icd10: 'K635',
        name: '結腸ポリープ',
        dpc6: '060100',
        operatedShare: 0.95,
        operations: [op('K7211', '150285010', '内視鏡的大腸ポリープ・粘膜切除術（長径２センチメートル未満）', null)],
      },
      {
        icd10: 'K805',
        name: '総胆管結石',
        dpc6: '060340',
        operatedShare: 0.8,
        operations: [op('K688', '150254410', '内視鏡的胆道ステント留置術', null)],
      },
    ],
  },
  {
    name: '消化器外科',
    code: '510',
    weight: 10,
    admissionShare: 0.45,
    purposes: ['手術適応の評価', '胆石症精査', 'ヘルニア手術依頼', '精査・加療依頼'],
    diseases: [
      {
        icd10: 'K802',
        name: '胆のう結石症',
        dpc6: '060335',
        operatedShare: 0.9,
        operations: [op('K672-2', '150254110', '腹腔鏡下胆嚢摘出術', general4)],
      },
      {
        icd10: 'K409',
        name: '鼠径ヘルニア',
        dpc6: '060160',
        operatedShare: 0.95,
        operations: [
          op('K6335', '150159010', 'ヘルニア手術（鼠径ヘルニア）', general5),
          op('K634', '150263610', '腹腔鏡下鼠径ヘルニア手術（両側）', general4),
        ],
      },
      {
        icd10: 'C182',
        name: '上行結腸癌',
        dpc6: '060035',
        operatedShare: 0.85,
        operations: [op('K719-3', '150324910', '腹腔鏡下結腸悪性腫瘍切除術', general4)],
      },
      {
        icd10: 'K358',
        name: '急性虫垂炎',
        dpc6: '060150',
        operatedShare: 0.9,
        operations: [op('K718-21', '150337610', '腹腔鏡下虫垂切除術（虫垂周囲膿瘍を伴わないもの）', general4)],
      },
    ],
  },
  {
    name: '整形外科',
    code: '120',
    weight: 15,
    admissionShare: 0.35,
    purposes: ['手術依頼', '骨折加療依頼', 'MRI検査依頼', '精査・加療依頼'],
    diseases: [
      {
        icd10: 'S7200',
        name: '大腿骨頚部骨折',
        dpc6: '160800',
        operatedShare: 0.9,
        operations: [
          op('K0461', '150019210', '骨折観血的手術（大腿）', general5),
          op('K0811', '150049510', '人工骨頭挿入術（股）', general5),
        ],
      },
      {
        icd10: 'M170',
        name: '両側性原発性膝関節症',
        dpc6: '070230',
        operatedShare: 0.85,
        operations: [op('K0821', '150050510', '人工関節置換術（膝）', general5)],
      },
      {
        icd10: 'M4806',
        name: '腰部脊柱管狭窄症',
        dpc6: '070343',
        operatedShare: 0.8,
        operations: [
          op(
            'K1421',
            '150282510',
            '脊椎固定術、椎弓切除術、椎弓形成術（多椎間又は多椎弓の場合を含む。）（前方椎体固定）',
            general3,
          ),
        ],
      },
    ],
  },
  {
    name: '眼科',
    code: '230',
    weight: 8,
    admissionShare: 0.3,
    purposes: ['白内障手術依頼', '精査・加療依頼'],
    diseases: [
      {
        icd10: 'H251',
        name: '老人性核白内障',
        dpc6: '020110',
        operatedShare: 0.98,
        operations: [op('K2821ﾛ', '150253010', '水晶体再建術（眼内レンズを挿入する場合）（その他のもの）', null)],
      },
    ],
  },
  {
    name: '脳神経外科',
    code: '150',
    weight: 6,
    admissionShare: 0.4,
    purposes: ['頭部CT異常', '精査・加療依頼', '手術適応の評価'],
    diseases: [
      {
        icd10: 'S065',
        name: '外傷性硬膜下血腫',
        dpc6: '160100',
        operatedShare: 0.7,
        operations: [op('K164-2', '150248250', '慢性硬膜下血腫洗浄・除去術（穿頭による）', null)],
      },
      {
        icd10: 'I634',
        name: '脳動脈の塞栓症による脳梗塞',
        dpc6: '010060',
        operatedShare: 0.25,
        operations: [op('K178-4', '150372510', '経皮的脳血栓回収術', null)],
      },
    ],
  },
  {
    name: '泌尿器科',
    code: '310',
    weight: 6,
    admissionShare: 0.3,
    purposes: ['血尿精査', '結石加療依頼', '精査・加療依頼'],
    diseases: [
      {
        icd10: 'N201',
        name: '尿管結石',
        dpc6: '110280',
        operatedShare: 0.8,
        operations: [op('K7811', '150365010', '経尿道的尿路結石除去術（レーザーによるもの）', general5)],
      },
      {
        icd10: 'C679',
        name: '膀胱癌',
        dpc6: '110070',
        operatedShare: 0.9,
        operations: [op('K8036ﾛ', '150246210', '膀胱悪性腫瘍手術（経尿道的手術）（その他のもの）', general5)],
      },
    ],
  },
  {
    name: '産婦人科',
    code: '220',
    weight: 5,
    admissionShare: 0.4,
    purposes: ['分娩依頼', '子宮筋腫精査', '精査・加療依頼'],
    diseases: [
      {
        icd10: 'O342',
        name: '既往帝王切開後妊娠',
        dpc6: '120260',
        operatedShare: 0.95,
        operations: [op('K8981', '150222110', '帝王切開術（緊急帝王切開）', null)],
      },
      {
        icd10: 'D259',
        name: '子宮平滑筋腫',
        dpc6: '120060',
        operatedShare: 0.85,
        operations: [op('K877-2', '150272250', '腹腔鏡下腟式子宮全摘術', general4)],
      },
    ],
  },
  {
    name: '乳腺外科',
    code: '610',
    weight: 3,
    admissionShare: 0.35,
    purposes: ['乳がん検診異常', '精査・加療依頼'],
    diseases: [
      {
        icd10: 'C504',
        name: '乳房上外側部の悪性新生物',
        dpc6: '090010',
        operatedShare: 0.9,
        operations: [
          op('K4762', '150303110', '乳腺悪性腫瘍手術（乳房部分切除術（腋窩部郭清を伴わないもの））', general5),
        ],
      },
    ],
  },
  {
    name: '呼吸器内科',
    code: '340',
    weight: 9,
    admissionShare: 0.3,
    purposes: ['胸部異常陰影精査', '肺炎加療依頼', '精査・加療依頼'],
    diseases: [
      { icd10: 'J189', name: '肺炎', dpc6: '040080', operatedShare: 0, operations: [] },
      { icd10: 'J441', name: '慢性閉塞性肺疾患の急性増悪', dpc6: '040120', operatedShare: 0, operations: [] },
    ],
  },
  {
    name: '内科',
    code: '010',
    weight: 8,
    admissionShare: 0.15,
    purposes: ['糖尿病コントロール', '精査・加療依頼', '発熱精査'],
    diseases: [
      { icd10: 'E119', name: '2型糖尿病', dpc6: '100070', operatedShare: 0, operations: [] },
      { icd10: 'N390', name: '尿路感染症', dpc6: '110310', operatedShare: 0, operations: [] },
    ],
  },
];

export const demoClinicDepartments = [
  '内科',
  '内科',
  '内科',
  '整形外科',
  '眼科',
  '外科',
  '小児科',
  '循環器内科',
  '消化器内科',
];

export const demoSurnames = [
  '佐藤',
  '鈴木',
  '高橋',
  '田中',
  '伊藤',
  '渡辺',
  '山本',
  '中村',
  '小林',
  '加藤',
  '吉田',
  '山田',
  '佐々木',
  '山口',
  '松本',
  '井上',
  '木村',
  '林',
  '斎藤',
  '清水',
  '山崎',
  '森',
  '池田',
  '橋本',
  '阿部',
  '石川',
  '望月',
  '杉山',
];
