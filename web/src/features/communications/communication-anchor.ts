/**
 * The element id of a record on its timeline (the `#` of a link to it). Its own module, so the pages
 * that link to a record (the CRM page, /vocs) do not load the timeline's card to name it.
 */
export const communicationAnchor = (id: string) => `communication-${id}`;
