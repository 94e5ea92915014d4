export * from './identity/identity.events.ts';
export * from './tags/tag.events.ts';
export * from './medical-institutions/medical-institution.events.ts';
export * from './labels/label.events.ts';
export * from './labels/label-values.ts';
export * from './labels/label-value-import.events.ts';
export * from './medical-institutions/stable-json.ts';
