/** Stream ids are `<aggregate>-<uuid>`; build them only through this helper. */
export function streamId(aggregate: string, id: string): string {
  return `${aggregate}-${id}`;
}

export function parseStreamId(stream: string): { aggregate: string; id: string } | null {
  const m = /^([a-z_]+)-([0-9a-f-]{36})$/.exec(stream);
  return m ? { aggregate: m[1]!, id: m[2]! } : null;
}
