/**
 * A table cell kept on one line. Browsers' automatic table layout squeezes short cells when a neighbour holds
 * long text: a date, a count's heading or a name then breaks a character or two per line.
 */
export const noWrap = { whiteSpace: 'nowrap' } as const;
