import { uuidV5 } from '@renkei/domain';

// A fixed namespace makes institution ids the same on every install and every re-import.
const namespace = '6f1c2a7e0b3d4e5f8a9b0c1d2e3f4a5b';

/** The id of the institution with a 医療機関コード: a name-based (v5) UUID of the code. */
export function institutionIdFromCode(code: string): string {
  return uuidV5(namespace, code);
}
