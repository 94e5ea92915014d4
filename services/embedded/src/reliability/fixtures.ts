import { randomUUID } from 'node:crypto';
import { CommunicationType } from '@renkei/contracts';
import { alertIdOf } from '@renkei/domain';

/** Ids of one record and of the records its path nests under, by resource kind. */
export type RecordIds = Readonly<Record<string, string>>;

/** What a fixture may do: call an endpoint of the registry as the tenant's owner. */
export interface FixtureApi {
  readonly tenant: { slug: string; canary: string };
  /** A few institutions of the shared public master. */
  readonly institutionIds: readonly string[];
  call(
    id: string,
    input: {
      params?: Record<string, string>;
      query?: Record<string, unknown>;
      body?: unknown;
      rawBody?: Buffer;
      headers?: Record<string, string>;
    },
  ): Promise<{ status: number; json: any }>;
  /**
   * Parks a requested campaign send as the delivery worker does when it gives up (an `EmailSendParked`
   * event on its delivery stream): no request can bring a send there, and only a parked send can be resumed.
   */
  parkEmailSend(emailId: string): Promise<void>;
}

export interface Fixture {
  /**
   * Records of a public master every tenant reads (medical institutions): another tenant's id of this
   * kind is not a secret, so the isolation attack on such a param checks the tenant's own data about
   * the record instead (the canary writes of the victim tenant).
   */
  readonly shared?: boolean;
  /** Creates a fresh record through the API and answers its id and its parents' ids. */
  create(api: FixtureApi): Promise<RecordIds>;
}

const unique = () => randomUUID().slice(0, 8);

/** A multipart body: text fields, then one file part. */
function multipartBody(
  fields: Record<string, string>,
  file: { field: string; name: string; type?: string; content: Buffer } | null,
): { rawBody: Buffer; headers: Record<string, string> } {
  const boundary = `----renkei${unique()}`;
  const parts: Buffer[] = Object.entries(fields).map(([name, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
  );
  if (file)
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\n` +
          `Content-Type: ${file.type ?? 'text/csv'}\r\n\r\n`,
      ),
      file.content,
      Buffer.from('\r\n'),
    );
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { rawBody: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/**
 * The file part a multipart endpoint reads, with a content it accepts (`n` varies it): `file` unless
 * listed here. An endpoint reading another part ignores a `file` part, so its upload attacks would test
 * nothing: add it here.
 */
const fileParts: Record<string, { field: string; content: (n: number) => string }> = {
  'emails.create': {
    field: 'recipients_file',
    content: (n) => `メールアドレス,氏名\r\nsuite-${n}@example.jp,宛先 ${n}\r\n`,
  },
  'emails.update': {
    field: 'recipients_file',
    content: (n) => `メールアドレス,氏名\r\nsuite-${n}@example.jp,宛先 ${n}\r\n`,
  },
};
export const filePartOf = (endpointId: string) =>
  fileParts[endpointId] ?? { field: 'file', content: (n: number) => `a,b\n1,${n + 2}\n` };

interface CommunicationLabelRow {
  id: string;
  communication_type: string;
  component_type: string;
  is_required: boolean;
  selections: { id: string }[];
}

/** What a communication needs to be accepted: the tenant's labels and own departments, read now. */
export interface CommunicationFacts {
  labels: CommunicationLabelRow[];
  departmentIds: string[];
}

export async function communicationFacts(api: Pick<FixtureApi, 'call'>): Promise<CommunicationFacts> {
  const labels = await api.call('labels.listCommunicationLabels', {});
  const departments = await api.call('referenceData.listOwnDepartments', {});
  if (labels.status !== 200 || departments.status !== 200)
    throw new Error(`communication facts: labels ${labels.status}, departments ${departments.status}`);
  return {
    labels: labels.json as CommunicationLabelRow[],
    departmentIds: (departments.json as { id: string }[]).map((d) => d.id),
  };
}

/**
 * A value for every required label of a communication type (other cases create required labels of
 * any kind, at any time), or null when one cannot be answered (a required own-department label while
 * the tenant has no department).
 */
function requiredLabelValues(facts: CommunicationFacts, communicationType: string): object[] | null {
  const values: object[] = [];
  for (const label of facts.labels) {
    if (label.communication_type !== communicationType || !label.is_required) continue;
    const choice = label.selections[0]?.id;
    const department = facts.departmentIds[0];
    const value: Record<string, object | null> = {
      text: { text_value: 'suite' },
      textarea: { text_value: 'suite' },
      integer: { integer_value: 1 },
      date: { date_value: '2026-11-20' },
      time: { time_value: '09:30' },
      select: choice ? { selection_id: choice } : null,
      radio: choice ? { selection_id: choice } : null,
      checkbox: choice ? { selection_ids: [choice] } : null,
      own_department: department ? { own_department_id: department } : null,
    };
    const fields = value[label.component_type];
    if (!fields) return null;
    values.push({ label_id: label.id, ...fields });
  }
  return values;
}

/** The communication type `preferred` if its required labels can be answered, else the first that can. */
export function answerableType(
  facts: CommunicationFacts,
  preferred: string,
): { type: string; label_values: object[] } | null {
  for (const type of [preferred, ...CommunicationType.options]) {
    const values = requiredLabelValues(facts, type);
    if (values) return { type, label_values: values };
  }
  return null;
}

const kindPrefix = {
  area_reports: 'areaReports',
  communication_reports: 'communicationReports',
  medical_institution_reports: 'medicalInstitutionReports',
  own_department_reports: 'ownDepartmentReports',
} as const;

async function created(api: FixtureApi, id: string, input: Parameters<FixtureApi['call']>[1]) {
  const res = await api.call(id, input);
  if (res.status >= 300 || typeof res.json?.id !== 'string') {
    throw new Error(`fixture ${id} for ${api.tenant.slug} answered ${res.status}: ${JSON.stringify(res.json)}`);
  }
  return res.json.id as string;
}

/** A report definition of each kind: one display item the kind has, over one year. */
const reportDefinitionFixtures: Record<string, Fixture> = Object.fromEntries(
  (
    [
      ['area_reports', 'prefecture'],
      ['communication_reports', 'acted_at'],
      ['medical_institution_reports', 'medical_institution_name'],
      ['own_department_reports', 'own_department_name'],
    ] as const
  ).map(([kind, item]) => [
    `${kind}/definitions`,
    {
      create: async (api: FixtureApi) => ({
        [`${kind}/definitions`]: await created(api, `${kindPrefix[kind]}.createDefinition`, {
          body: {
            name: `${api.tenant.canary} レポート ${unique()}`,
            display_items: [{ item_key: item }],
            aggregation_settings: { period: { from: '2025-04-01', to: '2026-03-31' } },
          },
        }),
      }),
    },
  ]),
);

/**
 * How to make a record of each kind a path param names. The kind of a param is the path segment
 * before it (`/tags/{id}` → `tags`, `/medical_institutions/{medical_institution_id}/…` →
 * `medical_institutions`). A served endpoint whose param kind is missing here fails the run: add the
 * kind, and every attack covers the new endpoint.
 */
export const fixtures: Record<string, Fixture> = {
  medical_institutions: {
    shared: true,
    create: async (api) => ({ medical_institutions: api.institutionIds[0]! }),
  },
  tags: {
    create: async (api) => ({
      tags: await created(api, 'tags.createTag', { body: { name: `${api.tenant.canary} タグ ${unique()}` } }),
    }),
  },
  medical_institution_labels: {
    create: async (api) => ({
      medical_institution_labels: await created(api, 'labels.createMedicalInstitutionLabel', {
        body: { name: `${api.tenant.canary} ラベル ${unique()}`, component_type: 'text' },
      }),
    }),
  },
  doctors: {
    create: async (api) => {
      const institution = api.institutionIds[0]!;
      const doctor = await created(api, 'doctors.create', {
        params: { id: institution },
        body: { name: `${api.tenant.canary} 医師 ${unique()}` },
      });
      return { medical_institutions: institution, doctors: doctor };
    },
  },
  communication_labels: {
    create: async (api) => ({
      communication_labels: await created(api, 'labels.createCommunicationLabel', {
        body: {
          name: `${api.tenant.canary} 活動ラベル ${unique()}`,
          communication_type: 'visit',
          component_type: 'text',
        },
      }),
    }),
  },
  communications: {
    create: async (api) => {
      const institution = api.institutionIds[0]!;
      // Other cases leave required labels behind: the fixture answers them.
      const answerable = answerableType(await communicationFacts(api), 'visit');
      if (!answerable) throw new Error(`fixture communications for ${api.tenant.slug}: no type can be answered`);
      const communication = await created(api, 'communications.createForMedicalInstitution', {
        params: { id: institution },
        body: {
          communication_type: answerable.type,
          acted_date: '2026-11-20',
          story: `${api.tenant.canary} 訪問記録`,
          label_values: answerable.label_values,
        },
      });
      return { medical_institutions: institution, communications: communication };
    },
  },
  comments: {
    create: async (api) => {
      const { communications } = await fixtures.communications!.create(api);
      const comment = await created(api, 'communications.createComment', {
        params: { communication_id: communications! },
        body: { comment: `${api.tenant.canary} コメント` },
      });
      return { communications: communications!, comments: comment };
    },
  },
  // Referrals and reverse referrals entered by hand (the only ones with PUT/DELETE calls).
  referrals: {
    create: async (api) => {
      const institution = api.institutionIds[0]!;
      const referral = await created(api, 'referrals.createForMedicalInstitution', {
        params: { id: institution },
        body: { referral_date: '2026-11-20', patient_id: `${api.tenant.canary}-${unique()}` },
      });
      return { medical_institutions: institution, referrals: referral };
    },
  },
  reverse_referrals: {
    create: async (api) => {
      const institution = api.institutionIds[0]!;
      const reverse = await created(api, 'referrals.createReverseForMedicalInstitution', {
        params: { id: institution },
        body: { reverse_referral_date: '2026-11-20', patient_id: `${api.tenant.canary}-${unique()}` },
      });
      return { medical_institutions: institution, reverse_referrals: reverse };
    },
  },
  tasks: {
    create: async (api) => ({
      tasks: await created(api, 'tasks.create', {
        body: { title: `${api.tenant.canary} 次回訪問の調整`, deadline: '2026-12-01' },
      }),
    }),
  },
  vocs: {
    create: async (api) => ({
      vocs: await created(api, 'vocs.create', {
        body: {
          medical_institution_id: api.institutionIds[0]!,
          title: `${api.tenant.canary} 返書の要望`,
          reported_date: '2026-11-20',
          detail_text: `${api.tenant.canary} 詳細`,
        },
      }),
    }),
  },
  alert_conditions: {
    create: async (api) => ({
      alert_conditions: await created(api, 'alerts.createCondition', {
        body: {
          name: `${api.tenant.canary} アラート条件 ${unique()}`,
          type: 'referral',
          triggers: { referral_change_rate: { direction: 'decrease', rate: 50 } },
        },
      }),
    }),
  },
  // An alert is raised by the worker's evaluation of a condition: one that matches the last institution
  // (tagged with a fresh tag, never visited) is created, and its alert waited for.
  alerts: {
    create: async (api) => {
      const institution = api.institutionIds.at(-1)!;
      const tag = await created(api, 'tags.createTag', { body: { name: `${api.tenant.canary} 対象 ${unique()}` } });
      await api.call('medicalInstitutions.updateTags', { params: { id: institution }, body: { tag_ids: [tag] } });
      const condition = await created(api, 'alerts.createCondition', {
        body: {
          name: `${api.tenant.canary} アラート ${unique()}`,
          type: 'communication',
          triggers: { communication_visit: { days_without_visit: 1 } },
          filters: { tag_ids: [tag] },
        },
      });
      // The alert of the last complete month in Japan (its id derives from the condition and month).
      const today = new Date(Date.now() + 9 * 3_600_000);
      const month = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1)).toISOString().slice(0, 10);
      const alert = alertIdOf(condition, month);
      for (let tries = 0; tries < 600; tries++) {
        if ((await api.call('alerts.get', { params: { id: alert } })).status === 200) return { alerts: alert };
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`fixture alerts for ${api.tenant.slug}: no alert was raised for condition ${condition}`);
    },
  },
  // Without the first institution, which generated bodies name (bodyRefs): adding it is accepted once.
  action_lists: {
    create: async (api) => ({
      action_lists: await created(api, 'actionLists.create', {
        body: {
          name: `${api.tenant.canary} アクションリスト ${unique()}`,
          medical_institution_ids: api.institutionIds.slice(1),
        },
      }),
    }),
  },
  ...reportDefinitionFixtures,
  dashboards: {
    create: async (api) => ({
      dashboards: await created(api, 'dashboards.create', {
        body: { name: `${api.tenant.canary} ダッシュボード ${unique()}` },
      }),
    }),
  },
  // A template names a list type, not a record of the tenant: nothing to isolate.
  templates: {
    shared: true,
    create: async () => ({ templates: 'referral' }),
  },
  data_uploads: {
    create: async (api) => {
      const boundary = `----renkei${unique()}`;
      const csv = `紹介日,患者ID,紹介元医療機関名\r\n2026-11-01,${unique()},${api.tenant.canary} クリニック\r\n`;
      const part = (name: string, value: string) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
      const rawBody = Buffer.concat([
        Buffer.from(part('import_type', 'referral')),
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="referrals.csv"\r\nContent-Type: text/csv\r\n\r\n`,
        ),
        Buffer.from(csv),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const id = await created(api, 'imports.createDataUpload', {
        rawBody,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      // The worker imports it in the background: a fixture is ready once its record is settled, so no
      // write of the import lands inside a block that checks that nothing was written.
      for (let tries = 0; tries < 600; tries++) {
        const res = await api.call('imports.getDataUpload', { params: { id } });
        if (res.status === 200 && !['waiting', 'processing'].includes(res.json?.status)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { data_uploads: id };
    },
  },
  'imports/communications': {
    create: async (api) => {
      const boundary = `----renkei${unique()}`;
      // A row naming no institution the master has: the import finishes with that row refused, quoting
      // the canary (another tenant must never read it).
      const csv = `医療機関名,活動日,種別,内容\r\n${api.tenant.canary} クリニック ${unique()},2026-11-01,電話,${api.tenant.canary}\r\n`;
      const rawBody = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="communications.csv"\r\nContent-Type: text/csv\r\n\r\n`,
        ),
        Buffer.from(csv),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const id = await created(api, 'imports.importCommunications', {
        rawBody,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      // Settled before it is used, as a data upload is: an undo of a running import is a 409.
      for (let tries = 0; tries < 600; tries++) {
        const res = await api.call('imports.listCommunicationImports', {});
        const record = res.json?.data?.find((r: { id: string }) => r.id === id);
        if (record && !['waiting', 'processing'].includes(record.status)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { 'imports/communications': id };
    },
  },
  uploaded_files: {
    create: async (api) => {
      const boundary = `----renkei${unique()}`;
      const rawBody = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${unique()}.txt"\r\nContent-Type: text/plain\r\n\r\n`,
        ),
        Buffer.from(`${api.tenant.canary} の添付ファイル`),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      return {
        uploaded_files: await created(api, 'imports.uploadFile', {
          rawBody,
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        }),
      };
    },
  },
  emails: {
    // With a recipients file, so that the email can be sent (a send without recipients is a 422).
    create: async (api) => ({
      emails: await created(
        api,
        'emails.create',
        multipartBody(
          {
            stringified: JSON.stringify({
              title: `${api.tenant.canary} メール ${unique()}`,
              sender_name: `${api.tenant.canary} 連携室`,
              sender_email: `renkei-${unique()}@${api.tenant.slug}.example`,
              main_content: `<p>${api.tenant.canary}</p>`,
            }),
          },
          {
            field: 'recipients_file',
            name: 'recipients.csv',
            content: Buffer.from(`メールアドレス,氏名\r\nsuite-${unique()}@${api.tenant.slug}.example,宛先\r\n`),
          },
        ),
      ),
    }),
  },
  accounts: {
    create: async (api) => ({
      accounts: await created(api, 'accounts.createAccount', {
        body: {
          username: `${api.tenant.canary} 職員`,
          email: `staff-${unique()}@${api.tenant.slug}.example`,
          password: 'staff-pass-2026',
          role: 'member',
        },
      }),
    }),
  },
};

/**
 * Records an endpoint needs in a state no fixture of its kind has, by endpoint id: used where the suite
 * wants a fresh record of the endpoint (idempotency, deletes) instead of the kind's fixture.
 */
export const endpointFixtures: Record<string, Fixture> = {
  // Only a send the worker parked can be resumed: a sent email whose delivery stopped.
  'emails.resumeSend': {
    create: async (api) => {
      const { emails } = await fixtures.emails!.create(api);
      const sent = await api.call('emails.send', { params: { id: emails! } });
      if (sent.status >= 300) throw new Error(`fixture emails.resumeSend: send answered ${sent.status}`);
      await api.parkEmailSend(emails!);
      return { emails: emails! };
    },
  },
};

/** Body fields that name a record of the tenant, by the kind of record. */
export const bodyRefs: Record<string, string> = {
  tag_ids: 'tags',
  label_id: 'medical_institution_labels',
  label_ids: 'medical_institution_labels',
  voc_ids: 'vocs',
  medical_institution_id: 'medical_institutions',
  medical_institution_ids: 'medical_institutions',
  communication_ids: 'communications',
};

/** `{name}` placeholders of a path with the kind each names. */
export function pathParamKinds(path: string): { name: string; kind: string }[] {
  const result: { name: string; kind: string }[] = [];
  const segments = path.split('/').filter(Boolean);
  segments.forEach((segment, i) => {
    const m = /^\{([a-z_]+)\}$/.exec(segment);
    // An import of communications is no communication: /imports/communications/{id} is its own kind;
    // so is a report definition of each report kind (/area_reports/definitions/{id}).
    const parent = segments[i - 2] === 'imports' || segments[i - 1] === 'definitions' ? `${segments[i - 2]}/` : '';
    if (m) result.push({ name: m[1]!, kind: parent + (segments[i - 1] ?? '') });
  });
  return result;
}

/** The kind whose fixture fills every param of a path: the innermost one (it knows its parents). */
export function innermostKind(path: string): string | undefined {
  return pathParamKinds(path).at(-1)?.kind;
}

/** Path params for a path from one fixture's ids. */
export function paramsFrom(path: string, ids: RecordIds): Record<string, string> {
  return Object.fromEntries(pathParamKinds(path).map((p) => [p.name, ids[p.kind] ?? '']));
}

/**
 * How a racer of the concurrency attack changes an accepted body, for a PUT that sets one entry of a
 * map rather than one value: every accepted body was written once already, so sent again it would
 * change nothing (and every racer would "win"). An institution match is re-pointed at another
 * institution of the master.
 */
export const raceVariants: Record<string, (body: unknown, api: FixtureApi) => unknown> = {
  'imports.matchInstitution': (body, api) => ({
    ...(body as object),
    medical_institution_id: api.institutionIds.find(
      (id) => id !== (body as { medical_institution_id?: string }).medical_institution_id,
    ),
  }),
};
