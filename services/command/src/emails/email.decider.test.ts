import { describe, it } from 'vitest';
import type { EmailDraftSaved } from '@renkei/domain';
import { invalid, notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { emailDecider, type EmailDraftInput } from './email.decider.ts';

const emailId = '11111111-1111-4111-8111-111111111111';
const doctorId = '22222222-2222-4222-8222-222222222222';
const institutionId = '33333333-3333-4333-8333-333333333333';
const fileId = '66666666-6666-4666-8666-666666666666';
const copiedId = '77777777-7777-4777-8777-777777777777';

const input = (over: Partial<EmailDraftInput> = {}): EmailDraftInput => ({
  title: '新任医師のご案内',
  senderName: '地域連携室',
  senderEmail: 'renkei@example.jp',
  mainContent: '<p>本文</p>',
  attachmentId: null,
  attachment: null,
  doctorIds: [],
  doctors: new Map(),
  fileRows: null,
  senderAllowed: true,
  ...over,
});

const draft = (over: Partial<EmailDraftSaved> = {}): EmailDraftSaved => ({
  email_id: emailId,
  title: '新任医師のご案内',
  sender_name: '地域連携室',
  sender_email: 'renkei@example.jp',
  main_content: '<p>本文</p>',
  attachment_id: null,
  doctor_ids: [],
  recipients: [
    {
      email_address: 'a@example.jp',
      name: '山田',
      institution_code: null,
      doctor_id: null,
      medical_institution_id: null,
    },
  ],
  invalid_recipients: [],
  ...over,
});

const created = { type: 'EmailCreated', data: draft() };

describe('email decider', () => {
  it('creates a draft: doctors first, file rows deduplicated case-insensitively, bad rows counted with their row', () => {
    given(emailDecider)
      .when({
        type: 'CreateEmail',
        emailId,
        input: input({
          doctorIds: [doctorId],
          doctors: new Map([
            [doctorId, { name: '佐藤', email: 'Sato@Example.jp', medicalInstitutionId: institutionId }],
          ]),
          fileRows: [
            { row: 2, email: 'sato@example.jp', name: '佐藤（重複）', institutionCode: null },
            { row: 3, email: 'not-an-address', name: null, institutionCode: null },
            { row: 4, email: ' b@example.jp ', name: '鈴木', institutionCode: '1311234567' },
            { row: 5, email: 'B@EXAMPLE.JP', name: null, institutionCode: null },
          ],
        }),
      })
      .then([
        {
          type: 'EmailCreated',
          data: draft({
            doctor_ids: [doctorId],
            recipients: [
              {
                email_address: 'Sato@Example.jp',
                name: '佐藤',
                institution_code: null,
                doctor_id: doctorId,
                medical_institution_id: institutionId,
              },
              {
                email_address: 'b@example.jp',
                name: '鈴木',
                institution_code: '1311234567',
                doctor_id: null,
                medical_institution_id: null,
              },
            ],
            invalid_recipients: [{ row: 3, value: 'not-an-address' }],
          }),
        },
      ]);
  });

  it('refuses a sender the tenant does not allow, and doctors that are not there or have no address', () => {
    given(emailDecider)
      .when({
        type: 'CreateEmail',
        emailId,
        input: input({
          senderAllowed: false,
          doctorIds: [doctorId, institutionId],
          doctors: new Map([
            [doctorId, { name: '佐藤', email: null, medicalInstitutionId: institutionId }],
            [institutionId, null],
          ]),
        }),
      })
      .thenRejected(
        invalid(
          {
            field: 'stringified.sender_email',
            message: '差出人メールアドレスは許可されたアドレスから選択してください',
          },
          { field: 'stringified.doctor_ids.0', message: '佐藤のメールアドレスが登録されていません' },
          { field: 'stringified.doctor_ids.1', message: '選択された医師が見つかりません' },
        ),
      );
  });

  it('keeps the previous file recipients when an update sends no file', () => {
    given(emailDecider, [created])
      .when({ type: 'UpdateEmail', emailId, input: input({ title: '改題' }) })
      .then([{ type: 'EmailUpdated', data: draft({ title: '改題' }) }]);
  });

  it('records nothing for an update that changes nothing', () => {
    given(emailDecider, [created]).when({ type: 'UpdateEmail', emailId, input: input() }).then([]);
  });

  it('refuses to edit or delete a sent email, and answers 404 for one that is not there', () => {
    const sent = { type: 'EmailSent', data: { email_id: emailId, sent_at: '2026-04-01T00:00:00.000Z' } };
    given(emailDecider, [created, sent])
      .when({ type: 'UpdateEmail', emailId, input: input() })
      .thenRejected(invalid({ field: 'id', message: '送信済みのメールは編集できません' }));
    given(emailDecider, [created, sent])
      .when({ type: 'DeleteEmail', emailId })
      .thenRejected(invalid({ field: 'id', message: '送信済みのメールは削除できません' }));
    given(emailDecider).when({ type: 'DeleteEmail', emailId }).thenRejected(notFound());
    given(emailDecider, [created, { type: 'EmailDeleted', data: { email_id: emailId } }])
      .when({ type: 'SendEmail', emailId })
      .thenRejected(notFound());
  });

  it('sends once: a second send records nothing', () => {
    given(emailDecider, [created])
      .when({ type: 'SendEmail', emailId })
      .then([{ type: 'EmailSent', data: { email_id: emailId, sent_at: '2026-04-01T00:00:00.000Z' } }]);
    given(emailDecider, [
      created,
      { type: 'EmailSent', data: { email_id: emailId, sent_at: '2026-04-01T00:00:00.000Z' } },
    ])
      .when({ type: 'SendEmail', emailId })
      .then([]);
  });

  it('refuses to send without recipients', () => {
    given(emailDecider, [{ type: 'EmailCreated', data: draft({ recipients: [] }) }])
      .when({ type: 'SendEmail', emailId })
      .thenRejected(
        invalid({ field: 'recipients', message: '送信先がありません。医師を選ぶか送信先ファイルを追加してください' }),
      );
  });

  it('copies a draft under the new id with its own copy of the attachment, and answers 404 for a source that is not there', () => {
    const copyId = '44444444-4444-4444-8444-444444444444';
    given(emailDecider)
      .when({ type: 'CopyEmail', emailId: copyId, source: draft({ attachment_id: fileId }), attachmentId: copiedId })
      .then([{ type: 'EmailCreated', data: draft({ email_id: copyId, attachment_id: copiedId }) }]);
    given(emailDecider)
      .when({ type: 'CopyEmail', emailId: copyId, source: null, attachmentId: null })
      .thenRejected(notFound());
  });

  describe('attachment', () => {
    const at = 'stringified.attachment_id';
    it('keeps a file of the tenant that nothing else holds, or that this email holds already', () => {
      given(emailDecider)
        .when({
          type: 'CreateEmail',
          emailId,
          input: input({ attachmentId: fileId, attachment: { owner: null, size: 1024 } }),
        })
        .then([{ type: 'EmailCreated', data: { ...draft({ attachment_id: fileId }), recipients: [] } }]);
      given(emailDecider, [created])
        .when({
          type: 'UpdateEmail',
          emailId,
          input: input({ attachmentId: fileId, attachment: { owner: `email:${emailId}`, size: 3 * 1024 * 1024 } }),
        })
        .then([{ type: 'EmailUpdated', data: draft({ attachment_id: fileId }) }]);
    });

    it('refuses an unknown or foreign file, one another record holds, and one over 3 MB', () => {
      const create = (attachment: EmailDraftInput['attachment']) =>
        given(emailDecider).when({ type: 'CreateEmail', emailId, input: input({ attachmentId: fileId, attachment }) });
      create(null).thenRejected(
        invalid({ field: at, message: '添付ファイルが見つかりません。ファイルを選び直してください' }),
      );
      for (const owner of [`email:${copiedId}`, `communication:${copiedId}`, `email_image:${fileId}`])
        create({ owner, size: 10 }).thenRejected(
          invalid({ field: at, message: 'このファイルは他の記録に添付されています。ファイルを選び直してください' }),
        );
      create({ owner: null, size: 3 * 1024 * 1024 + 1 }).thenRejected(
        invalid({
          field: at,
          message:
            '添付ファイルが大きすぎます（上限 3 MB）。すべての送信先に届くため、小さくするかファイルへのリンクを本文に入れてください',
        }),
      );
    });
  });

  it('records a test send, even of a sent email', () => {
    const testId = '55555555-5555-4555-8555-555555555555';
    given(emailDecider, [created])
      .when({ type: 'SendEmailForTest', emailId, testId, emailAddresses: ['me@example.jp'] })
      .then([
        { type: 'EmailTestSent', data: { email_id: emailId, test_id: testId, email_addresses: ['me@example.jp'] } },
      ]);
  });
});
