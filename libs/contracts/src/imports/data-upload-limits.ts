import type { DataUploadType } from './data-upload.schemas.ts';

const mebibyte = 1024 * 1024;

/**
 * Largest file accepted per import type. The DPC files of a year run to millions of rows (1,000,000 EF
 * rows are about 107 MB), so they may be large; they are streamed to disk and parsed in chunks, never
 * held whole. The two lists stay small. The gateway lets a multipart body through up to the largest
 * limit of its endpoint plus `multipartFramingBytes`; the command service enforces the type's limit
 * while the file streams in.
 */
export const dataUploadMaxBytes: Readonly<Record<DataUploadType, number>> = {
  referral: 99 * mebibyte,
  reverse_referral: 99 * mebibyte,
  ff1_file: 2048 * mebibyte,
  d_file: 2048 * mebibyte,
  outpatient_ef_file: 2048 * mebibyte,
  hospital_admission_ef_file: 2048 * mebibyte,
};

/** Room for the multipart boundaries and the small fields beside the file. */
export const multipartFramingBytes = mebibyte;

/** A limit as it is shown and named in messages: `99 MB`, `2 GB` (binary units, as the limits are set). */
export function formatUploadLimit(bytes: number): string {
  const gib = bytes / (1024 * mebibyte);
  if (gib >= 1) return `${Math.floor(gib * 10) / 10} GB`;
  return `${Math.floor((bytes / mebibyte) * 10) / 10} MB`;
}
