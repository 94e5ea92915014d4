import fs from 'node:fs';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserRef } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { streamId, type EventStore } from '@renkei/event-store';
import type { AuthContext } from '@renkei/service-kit';
import { handleCommand } from './command-handler.ts';
import type { Decider } from './decider.ts';
import { deterministicId } from './deterministic-id.ts';
import { callerRef } from './facts.ts';
import { idempotentCreate } from './idempotency.ts';
import type { KeptUpload, StagedUploads } from './staged-upload.ts';

/** An import as it is answered when opened: waiting, nothing counted yet. */
export interface OpenedImport {
  id: string;
  filename: string;
  status: 'waiting';
  error_messages: [];
  imported_row_count: 0;
  failed_row_count: 0;
  unprocessed_row_count: 0;
  abortion_row_number: null;
  created_at: string;
  created_by: UserRef;
}

/**
 * An upload that opens an import (the label-value, communication and referral data imports): the
 * same file (name and content) with the same `options` under one Idempotency-Key is the same import;
 * the file is kept read-only under the import's id and the import's request starts its new stream
 * (event ids derive from the key, so a retry appends the very same events). The worker's reactor does
 * the rest. Answers `answer` of the opened import, with its position.
 */
export async function openImport<S, C, E extends { type: string; data: unknown }, T>(
  caller: { db: Database; store: EventStore; auth: AuthContext; request: FastifyRequest; reply: FastifyReply },
  uploads: StagedUploads,
  spec: {
    endpoint: string;
    /** What, beside the file, makes a retry the same request. */
    options: Record<string, unknown>;
    aggregate: string;
    decider: Decider<S, C, E>;
    command: (kept: KeptUpload) => C;
    /** Part of the derived event ids: stored, never to change. */
    eventIdTag: string;
    /** A refused command leaves no file behind. */
    discardRefused?: boolean;
    answer: (opened: OpenedImport) => T;
  },
): Promise<T> {
  const { db, store, auth, request, reply } = caller;
  const upload = uploads.identity(request);
  const createdBy = await callerRef(store, auth);
  return idempotentCreate(
    db,
    { request, reply, tenantId: auth.tenantId, endpoint: spec.endpoint, hashed: { ...upload, ...spec.options } },
    async (importId, retryable) => {
      const kept = uploads.keep(request, auth.tenantId, importId);
      const result = await handleCommand(
        { store, auth, requestId: request.id },
        {
          stream: streamId(spec.aggregate, importId),
          decider: spec.decider,
          command: spec.command(kept),
          isNew: true,
          onRace: 'conflict',
          ...(retryable
            ? { eventId: (i: number) => deterministicId(importId, spec.eventIdTag, retryable.hash, String(i)) }
            : {}),
        },
      ).catch((error: unknown) => {
        if (spec.discardRefused) fs.rmSync(path.dirname(kept.storedPath), { recursive: true, force: true });
        throw error;
      });
      const opened: OpenedImport = {
        id: importId,
        filename: kept.filename,
        status: 'waiting',
        error_messages: [],
        imported_row_count: 0,
        failed_row_count: 0,
        unprocessed_row_count: 0,
        abortion_row_number: null,
        created_at: new Date().toISOString(),
        created_by: createdBy,
      };
      return { body: spec.answer(opened), position: result.position };
    },
  );
}
