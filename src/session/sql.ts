import type Database from 'better-sqlite3';

export type SqlValue = string | number | bigint | null;

/** Positional values, or one object for `@name` parameters. */
export type SqlBind = SqlValue[] | [Record<string, SqlValue>];

/** A connection with each statement prepared once and reused (preparing is the expensive part). */
export class Sql {
  private readonly statements = new Map<string, Database.Statement<unknown[]>>();

  constructor(readonly db: Database.Database) {}

  private statement(source: string): Database.Statement<unknown[]> {
    let prepared = this.statements.get(source);
    if (!prepared) {
      prepared = this.db.prepare(source);
      this.statements.set(source, prepared);
    }
    return prepared;
  }

  run(source: string, ...params: SqlBind): Database.RunResult {
    return this.statement(source).run(...params);
  }

  /** `Row` describes the selected columns; SQLite does not check it, the query must match it. */
  get<Row>(source: string, ...params: SqlBind): Row | undefined {
    return this.statement(source).get(...params) as Row | undefined;
  }

  all<Row>(source: string, ...params: SqlBind): Row[] {
    return this.statement(source).all(...params) as Row[];
  }

  /** Runs `body` in one transaction: all of its writes commit, or none do. */
  transaction<T>(body: () => T): T {
    return this.db.transaction(body)();
  }
}

/** What every table module works with. */
export interface StoreContext {
  sql: Sql;
  /** Epoch milliseconds; injected so tests control ordering. */
  now: () => number;
  /** This process's id, recorded as the owner of the tasks it creates. */
  pid: number;
}
