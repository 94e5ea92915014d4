/** Stream ids are `<aggregate>-<uuid>`; build them only through this helper. */
export function streamId(aggregate: string, id: string): string {
  return `${aggregate}-${id}`;
}
