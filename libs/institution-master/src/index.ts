export {
  computeInstitutionCheckDigit,
  isValidInstitutionCode,
  buildInstitutionCode,
  withSpreadsheetZeroRestored,
} from './institution-code.ts';
export { institutionIdFromCode } from './institution-id.ts';
export { normalizeKeyword, buildSearchText } from './normalize.ts';
export {
  masterColumns,
  runningStatusLabels,
  parseRunningStatus,
  type RunningStatus,
  type MasterRecord,
} from './master-format.ts';
export { detectEncoding, readMasterFile, type FileEncoding } from './master-file.ts';
export { parseMasterRecord, type MasterInstitution } from './master-row.ts';
export {
  importInstitutionMaster,
  migrateInstitutionMaster,
  type ImportMasterOptions,
  type SyncRunResult,
  type SyncRowError,
} from './import-master.ts';
export { generateInstitutionMaster, type GenerateMasterOptions } from './generate-master.ts';
export { demoMunicipalities, demoPrefectureCode, type DemoMunicipality } from './demo-region.ts';
export { departments, findDepartmentByName, type Department } from './reference/departments.ts';
export {
  facilityTypeGroups,
  facilityTypes,
  findFacilityTypeByName,
  type FacilityType,
  type FacilityTypeGroup,
} from './reference/facility-types.ts';
export { mdcs, type Mdc } from './reference/mdcs.ts';
export { kcodes, type KCode } from './reference/kcodes.ts';
export { prefectures, splitAddress, type Prefecture } from './reference/prefectures.ts';
