import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError, endpoints, type Email, type EmailInput, type UserRef } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { createPostgresFileStorage, fileUrlKey, type FileStorage } from '@renkei/file-storage';
import { doctorAggregate, emailAggregate, emailDeliveryAggregate, invalidDestinationsOf } from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { doctorDecider } from '../doctors/doctor.decider.ts';
import { etagOf, eventMetadata, revisionIfMatch } from '../shared/command-context.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { refuseMultipartWithoutBoundary } from '../shared/staged-upload.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { callerRef, emailSenderAllowed, readState } from '../shared/facts.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { attachmentFact, attachmentView, copyAttachment, linkEmailAttachment } from './email-attachment.ts';
import { recordEmailCommunications } from './email-communications.ts';
import { pendingStop, resumeEvent } from './email-send-resume.ts';
import { sanitizeEmailHtml } from './email-content.ts';
import { publishMailImages } from './email-images.ts';
import { readRecipientsFile } from './email-recipients-file.ts';
import { emailDecider, type DoctorFact, type EmailDraftInput, type EmailState } from './email.decider.ts';

export interface EmailRouteDeps {
  db: Database;
  store: EventStore;
  /** Largest recipients file (default 5 MiB: 10,000 rows of address, name and code fit many times). */
  maxRecipientsFileBytes?: number;
  /** Where uploaded images and attachments are kept (default the database's, as `POST /uploaded_files`). */
  fileStorage?: FileStorage;
  /** Key of file links (default RENKEI_FILE_URL_SECRET or the key kept in RENKEI_DATA_DIR). */
  fileUrlKey?: Buffer;
  /** The public origin mail clients fetch images from (default PUBLIC_ORIGIN). */
  publicOrigin?: string;
}

interface MailImageDeps {
  storage: FileStorage;
  fileUrlKey: () => Buffer;
  publicOrigin: string;
}

const recipientsFiles = new WeakMap<FastifyRequest, Buffer>();

/**
 * The record as the command side knows it; `created_by` is the writer of the stream's first event,
 * the attachment's name and size are the file storage's (as communications' attachments).
 */
async function toEmail(
  store: EventStore,
  files: MailImageDeps,
  auth: AuthContext,
  emailId: string,
  state: EmailState,
  stored: RecordedEvent[],
  revision: number,
): Promise<Email> {
  const draft = state.draft!;
  const now = new Date();
  const first = stored[0];
  const creatorId = first?.metadata.account_id ?? auth.accountId;
  const createdBy: UserRef = await callerRef(store, { ...auth, accountId: creatorId });
  return {
    id: emailId,
    title: draft.title,
    status: state.status === 'sent' ? 'sent' : 'unsent',
    destination_count: draft.recipients.length,
    invalid_destination_count: draft.invalid_recipients.length,
    invalid_destinations: invalidDestinationsOf(draft.invalid_recipients),
    sender_name: draft.sender_name,
    sender_email: draft.sender_email,
    main_content: draft.main_content,
    attachment_id: draft.attachment_id,
    ...(await attachmentView(files.storage, files.fileUrlKey, auth.tenantId, draft.attachment_id)),
    doctor_ids: draft.doctor_ids,
    sent_at: state.sentAt,
    created_by: createdBy,
    created_at: (first?.created_at ?? now).toISOString(),
    updated_at: now.toISOString(),
    version: revision,
    // The worker stops a send later, on its own; what the query side answers shows it.
    delivery_stopped: null,
  };
}

/** Each chosen doctor from its own stream (null: not a doctor of this tenant, or removed). */
async function doctorFacts(store: EventStore, tenantId: string, ids: readonly string[]) {
  const facts = new Map<string, DoctorFact | null>();
  const unique = [...new Set(ids)];
  // A few streams at a time: a campaign may name thousands of doctors.
  for (let i = 0; i < unique.length; i += 16) {
    await Promise.all(
      unique.slice(i, i + 16).map(async (id) => {
        const { state } = await readState(store, tenantId, streamId(doctorAggregate, id), doctorDecider);
        facts.set(
          id,
          state.status === 'active' && state.fields
            ? {
                name: state.fields.name,
                email: state.fields.email,
                medicalInstitutionId: state.fields.medical_institution_id,
              }
            : null,
        );
      }),
    );
  }
  return facts;
}

async function draftInput(
  store: EventStore,
  auth: AuthContext,
  input: EmailInput,
  file: Buffer | undefined,
  images: MailImageDeps,
): Promise<EmailDraftInput> {
  let fileRows: EmailDraftInput['fileRows'] = null;
  if (file) {
    const read = readRecipientsFile(file);
    if ('errors' in read) throw new HttpError(422, undefined, { errors: read.errors });
    fileRows = read.rows;
  }
  return {
    title: input.title,
    senderName: input.sender_name,
    senderEmail: input.sender_email,
    mainContent: await publishMailImages(sanitizeEmailHtml(input.main_content), { tenantId: auth.tenantId, ...images }),
    attachmentId: input.attachment_id,
    attachment: await attachmentFact(images.storage, auth.tenantId, input.attachment_id),
    doctorIds: input.doctor_ids,
    doctors: await doctorFacts(store, auth.tenantId, input.doctor_ids),
    fileRows,
    senderAllowed: await emailSenderAllowed(store, auth, input.sender_email),
  };
}

/**
 * Email campaigns (spec §3): drafts written as multipart (`stringified` + an optional
 * `recipients_file`), copy, delete of unsent ones, send (once) and test sends. Delivery is the
 * worker's (email-delivery reactor).
 */
export async function registerEmailRoutes(app: FastifyInstance, deps: EmailRouteDeps): Promise<void> {
  const { db, store } = deps;
  const maxFileBytes = deps.maxRecipientsFileBytes ?? 5 * 1024 * 1024;
  const storage = deps.fileStorage ?? createPostgresFileStorage(db);
  await storage.migrate();
  let key = deps.fileUrlKey ?? null;
  const images: MailImageDeps = {
    storage,
    fileUrlKey: () => (key ??= fileUrlKey()),
    publicOrigin: deps.publicOrigin ?? process.env.PUBLIC_ORIGIN ?? 'https://localhost:3000',
  };

  await app.register(async (child) => {
    refuseMultipartWithoutBoundary(child);
    await child.register(multipart, {
      attachFieldsToBody: 'keyValues',
      limits: { files: 1, fileSize: maxFileBytes, fields: 5, fieldSize: 1024 * 1024 },
      async onFile(this: FastifyRequest, part) {
        const chunks: Buffer[] = [];
        try {
          // Any other file part is read to its end and dropped: a body cut off inside it fails here too.
          for await (const chunk of part.file) if (part.fieldname === 'recipients_file') chunks.push(chunk as Buffer);
        } catch {
          throw new HttpError(400, 'ファイルの送信が途中で途切れました。もう一度お試しください。');
        }
        if (part.fieldname !== 'recipients_file') return;
        if (part.file.truncated)
          throw new HttpError(
            413,
            `送信先ファイルが大きすぎます（上限 ${Math.floor(maxFileBytes / 1024 / 1024)} MB）。`,
          );
        recipientsFiles.set(this, Buffer.concat(chunks));
        part.value = '';
      },
    });

    registerEndpoint(child, endpoints.createEmail, async ({ body, auth, request, reply }) => {
      const file = recipientsFiles.get(request);
      const input = await draftInput(store, auth, body.stringified, file, images);
      return idempotentCreate(
        db,
        {
          request,
          reply,
          tenantId: auth.tenantId,
          endpoint: endpoints.createEmail.id,
          hashed: { body, file: file?.toString('base64') ?? null },
          etag: (m: Email) => etagOf(m.version),
        },
        async (emailId, retryable) => {
          const result = await handleCommand(
            { store, auth, requestId: request.id },
            {
              stream: streamId(emailAggregate, emailId),
              decider: emailDecider,
              command: { type: 'CreateEmail', emailId, input },
              isNew: true,
              onRace: 'conflict',
              ...(retryable
                ? { eventId: (i: number) => deterministicId(emailId, 'create', retryable.hash, String(i)) }
                : {}),
            },
          );
          await linkEmailAttachment(storage, auth.tenantId, emailId, result.after, result.revision);
          return {
            body: await toEmail(store, images, auth, emailId, result.after, [], result.revision),
            position: result.position,
          };
        },
      );
    });

    registerEndpoint(child, endpoints.updateEmail, async ({ params, body, auth, request, reply }) => {
      const input = await draftInput(store, auth, body.stringified, recipientsFiles.get(request), images);
      const result = await handleCommand(
        { store, auth, requestId: request.id },
        {
          stream: streamId(emailAggregate, params.id),
          decider: emailDecider,
          command: { type: 'UpdateEmail', emailId: params.id, input },
          ifMatch: revisionIfMatch(request.headers['if-match']),
          onRace: 'conflict',
        },
      );
      await linkEmailAttachment(storage, auth.tenantId, params.id, result.after, result.revision);
      if (result.position) reply.position(result.position);
      void reply.header('etag', etagOf(result.revision));
      return toEmail(store, images, auth, params.id, result.after, result.stored, result.revision);
    });
  });

  registerEndpoint(app, endpoints.deleteEmail, async ({ params, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(emailAggregate, params.id),
        decider: emailDecider,
        command: { type: 'DeleteEmail', emailId: params.id },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    // The deleted draft's attachment is released (swept a day later).
    await linkEmailAttachment(storage, auth.tenantId, params.id, result.after, result.revision);
    if (result.position) reply.position(result.position);
    return null;
  });

  registerEndpoint(app, endpoints.copyEmail, async ({ params, auth, request, reply }) => {
    const source = await readState(store, auth.tenantId, streamId(emailAggregate, params.id), emailDecider);
    const sourceDraft = source.state.status === 'draft' || source.state.status === 'sent' ? source.state.draft : null;
    if (!sourceDraft) throw new HttpError(404);
    return idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.copyEmail.id,
        hashed: { source: params.id },
        etag: (m: Email) => etagOf(m.version),
      },
      async (emailId, retryable) => {
        const attachmentId = await copyAttachment(
          storage,
          auth.tenantId,
          auth.accountId,
          sourceDraft.attachment_id,
          emailId,
        );
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: streamId(emailAggregate, emailId),
            decider: emailDecider,
            command: { type: 'CopyEmail', emailId, source: sourceDraft, attachmentId },
            isNew: true,
            onRace: 'conflict',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(emailId, 'copy', retryable.hash, String(i)) }
              : {}),
          },
        );
        await linkEmailAttachment(storage, auth.tenantId, emailId, result.after, result.revision);
        return {
          body: await toEmail(store, images, auth, emailId, result.after, [], result.revision),
          position: result.position,
        };
      },
    );
  });

  registerEndpoint(app, endpoints.sendEmail, async ({ params, auth, request, reply }) =>
    idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.sendEmail.id,
        // The key names the send of one email: a retry answers what the first send did.
        hashed: { email_id: params.id },
        etag: (m: Email) => etagOf(m.version),
      },
      async () => {
        // The attachment is checked when saved and never swept while referenced; should it be gone
        // all the same, the sender hears it now rather than the campaign being parked by the worker.
        const current = await readState(store, auth.tenantId, streamId(emailAggregate, params.id), emailDecider);
        const attachmentId = current.state.status === 'draft' ? current.state.draft?.attachment_id : null;
        if (attachmentId && !(await attachmentFact(storage, auth.tenantId, attachmentId)))
          throw new HttpError(422, undefined, {
            errors: [
              {
                field: 'attachment_id',
                message: '添付ファイルが見つかりません。添付ファイルを選び直して保存してから送信してください',
              },
            ],
          });
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: streamId(emailAggregate, params.id),
            decider: emailDecider,
            command: { type: 'SendEmail', emailId: params.id },
            // A second send is no change whatever the client last saw: If-Match is not asked for.
            onRace: 'recompute',
          },
        );
        if (result.after.status === 'sent' && result.after.draft && result.after.sentAt) {
          // Every send (the first, or a repeat after a crash) completes the timeline records: ids are
          // the campaign's and the institution's, so none is recorded twice.
          const sentEvent = result.stored.find((e) => e.type === 'EmailSent');
          await recordEmailCommunications(
            { db, store, auth, requestId: request.id },
            {
              emailId: params.id,
              draft: result.after.draft,
              sentAt: result.after.sentAt,
              sentBy: sentEvent?.metadata.account_id ?? auth.accountId,
            },
          );
        }
        return {
          body: await toEmail(store, images, auth, params.id, result.after, result.stored, result.revision),
          position: result.position,
        };
      },
    ),
  );

  registerEndpoint(app, endpoints.resumeEmailSend, async ({ params, auth, request, reply }) =>
    idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.resumeEmailSend.id,
        // The key names the resume of one email's send: a retry answers what the first resume did.
        hashed: { email_id: params.id },
        etag: (m: Email) => etagOf(m.version),
      },
      async () => {
        const email = await readState(store, auth.tenantId, streamId(emailAggregate, params.id), emailDecider);
        if (email.state.status === 'absent' || email.state.status === 'deleted') throw new HttpError(404);
        const stops = await readStreamOrEmpty(store, streamId(emailDeliveryAggregate, params.id), auth.tenantId, [
          'EmailSendParked',
          'EmailSendResumed',
        ]);
        const stop = pendingStop(stops);
        if (email.state.status !== 'sent' || !stop)
          throw new HttpError(409, 'このメールの送信は止まっていません。画面を更新して最新の状態を確認してください。');
        const result = await store.append(
          streamId(emailDeliveryAggregate, params.id),
          [{ ...resumeEvent(params.id, stop.id, new Date()), metadata: eventMetadata(auth, request.id) }],
          { expectedRevision: 'any' },
        );
        const revision = email.events.length - 1;
        return {
          body: await toEmail(store, images, auth, params.id, email.state, email.events, revision),
          position: result.position,
        };
      },
    ),
  );

  registerEndpoint(app, endpoints.sendEmailForTest, async ({ params, body, auth, request, reply }) =>
    idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.sendEmailForTest.id,
        // The key names one test send of one email: a retry never mails the addresses twice.
        hashed: { email_id: params.id, body },
      },
      async (testId, retryable) => {
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: streamId(emailAggregate, params.id),
            decider: emailDecider,
            command: {
              type: 'SendEmailForTest',
              emailId: params.id,
              testId,
              emailAddresses: [...new Set(body.email_addresses.map((a) => a.trim()))],
            },
            onRace: 'recompute',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(testId, 'test', retryable.hash, String(i)) }
              : {}),
          },
        );
        const count = result.events[0]?.type === 'EmailTestSent' ? result.events[0].data.email_addresses.length : 0;
        return { body: { count }, position: result.position };
      },
    ),
  );
}
