export { createPostgresFileStorage, type FileStorage, type NewFile, type StoredFile } from './file-storage.ts';
export { isImage, isInlineSafe, sniffContentType, sniffLength } from './sniff.ts';
export { fileUrlKey, filePathPrefix, signFileUrl, signedUrlSeconds, verifyFileUrl } from './signed-url.ts';
