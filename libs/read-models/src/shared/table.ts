import { sql, type ColumnType, type Generated, type RawBuilder, type Transaction } from 'kysely';

/**
 * One column of a read-model table: its SQL type, what a read returns (`S`), what a projection writes
 * (`W`, the JSON form a batch carries: timestamps as ISO strings), and whether it may be null or has a
 * default.
 */
class Column<S, W, N extends boolean = false, D extends boolean = false> {
  declare readonly _select: S;
  declare readonly _write: W;
  constructor(
    readonly sqlType: string,
    readonly isNullable: N,
    readonly defaultSql: D extends true ? string : undefined,
  ) {}
  nullable(): Column<S, W, true, D> {
    return new Column(this.sqlType, true, this.defaultSql);
  }
  /** `expression` is a trusted SQL constant (`0`, `'{}'`). */
  default(expression: string): Column<S, W, N, true> {
    return new Column<S, W, N, true>(this.sqlType, this.isNullable, expression);
  }
}

const of = <S, W = S>(sqlType: string) => new Column<S, W>(sqlType, false, undefined);

/** Column types of read-model tables; the TypeScript types are what node-postgres returns. */
export const column = {
  uuid: () => of<string>('uuid'),
  text: <T extends string = string>() => of<T>('text'),
  int: () => of<number>('int'),
  /** int8 and numeric come back as strings (they may exceed a double). */
  bigint: () => of<string>('bigint'),
  numeric: () => of<string>('numeric'),
  boolean: () => of<boolean>('boolean'),
  timestamptz: () => of<Date, string>('timestamptz'),
  date: () => of<Date, string>('date'),
  uuidArray: () => of<string[]>('uuid[]'),
  jsonb: <T>() => of<T>('jsonb'),
};

type AnyColumn = Column<unknown, unknown, boolean, boolean>;
type Columns = Readonly<Record<string, AnyColumn>>;

export interface TableDefinition<Name extends string = string, C extends Columns = Columns> {
  readonly name: Name;
  readonly columns: C;
  readonly primaryKey: readonly string[];
  /** Each index as its column list; an entry may carry `DESC`. Trusted constants. */
  readonly indexes?: readonly (readonly string[])[];
}

/** A read-model table, described once: its DDL, its Kysely type and the rows projections write come from here. */
export function defineTable<const Name extends string, const C extends Columns>(
  table: TableDefinition<Name, C> & { readonly primaryKey: readonly (keyof C & string)[] },
): TableDefinition<Name, C> {
  return table;
}

type Nullable<Col, T> = Col extends Column<any, any, true, any> ? T | null : T;

/** The logical names of a projection's tables (its `tables`). */
export function tableNames<const D extends readonly TableDefinition[]>(tables: D): D[number]['name'][] {
  return tables.map((table) => table.name);
}

/** The Kysely type of a table (`Generated` where the database fills a default). */
type KyselyTable<Def extends TableDefinition> = {
  [K in keyof Def['columns']]: Def['columns'][K] extends Column<infer S, infer W, boolean, infer D>
    ? D extends true
      ? Generated<Nullable<Def['columns'][K], S>>
      : ColumnType<
          Nullable<Def['columns'][K], S>,
          Nullable<Def['columns'][K], S | W>,
          Nullable<Def['columns'][K], S | W>
        >
    : never;
};

/** The Kysely tables of a feature: `rm.<name>`, the view that reads the live build. */
export type KyselyTables<Defs extends TableDefinition> = {
  [Def in Defs as `rm.${Def['name']}`]: KyselyTable<Def>;
};

/** A row as read (what node-postgres returns for `SELECT *`). */
export type TableRow<Def extends TableDefinition> = {
  -readonly [K in keyof Def['columns']]: Def['columns'][K] extends Column<infer S, any, boolean, boolean>
    ? Nullable<Def['columns'][K], S>
    : never;
};

/** A row as a projection writes it in a JSON batch. */
export type WriteRow<Def extends TableDefinition> = {
  -readonly [K in keyof Def['columns']]: Def['columns'][K] extends Column<any, infer W, boolean, boolean>
    ? Nullable<Def['columns'][K], W>
    : never;
};

/** The DDL of one build of the table, `physical` being its versioned name (`rm.tags_v2`). */
function createTable(table: TableDefinition, physical: string): RawBuilder<unknown>[] {
  const columns = Object.entries(table.columns).map(
    ([name, c]) =>
      `${name} ${c.sqlType}${c.isNullable ? '' : ' NOT NULL'}${c.defaultSql !== undefined ? ` DEFAULT ${c.defaultSql}` : ''}`,
  );
  columns.push(`PRIMARY KEY (${table.primaryKey.join(', ')})`);
  return [
    sql`CREATE TABLE ${sql.table(physical)} (${sql.raw(columns.join(', '))})`,
    ...(table.indexes ?? []).map((index) => sql`CREATE INDEX ON ${sql.table(physical)} (${sql.raw(index.join(', '))})`),
  ];
}

/** Runs the DDL of every table of a projection's build. */
export async function createTables<N extends string>(
  trx: Transaction<unknown>,
  tables: readonly TableDefinition<N>[],
  t: Readonly<Record<N, string>>,
): Promise<void> {
  for (const table of tables) for (const statement of createTable(table, t[table.name])) await statement.execute(trx);
}

/**
 * One multi-row insert of any size: the rows travel as a single JSON parameter (no bind-parameter
 * limit, one statement per table and batch), typed by the table's columns. `columns` narrows the
 * written columns (default: all); `onConflict` is appended as is. `rowsPerStatement` splits a batch
 * that could be too large for one JSON text (V8's longest string) into statements of at most that many
 * rows, in order, in the same transaction.
 */
export async function insertRows<
  Def extends TableDefinition,
  K extends keyof Def['columns'] & string = keyof Def['columns'] & string,
>(
  trx: Transaction<unknown>,
  physical: string,
  table: Def,
  rows: readonly Pick<WriteRow<Def>, NoInfer<K>>[],
  options: {
    columns?: readonly K[];
    onConflict?: RawBuilder<unknown>;
    plainJson?: boolean;
    rowsPerStatement?: number;
  } = {},
): Promise<void> {
  if (rows.length === 0) return;
  const limit = options.rowsPerStatement;
  if (limit !== undefined && rows.length > limit) {
    for (let i = 0; i < rows.length; i += limit)
      await insertRows(trx, physical, table, rows.slice(i, i + limit), { ...options, rowsPerStatement: undefined });
    return;
  }
  const names: readonly string[] = options.columns ?? Object.keys(table.columns);
  const list = sql.raw(names.join(', '));
  const definitions = sql.raw(names.map((c) => `${c} ${table.columns[c]!.sqlType}`).join(', '));
  // `plainJson`: the rows are read from `json` text as they come, without first building the jsonb
  // value of the whole batch; a quarter less time for tens of thousands of flat rows (the referral facts).
  const recordset = options.plainJson
    ? sql`json_to_recordset(${JSON.stringify(rows)}::json)`
    : sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)`;
  await sql`INSERT INTO ${sql.table(physical)} (${list})
    SELECT ${list} FROM ${recordset} AS r(${definitions}) ${options.onConflict ?? sql``}`.execute(trx);
}
