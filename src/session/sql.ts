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

  /** better-sqlite3's transaction wrapper, made once: making one builds four functions (issue 17). */
  private runInTransaction?: (body: () => unknown) => unknown;

  /**
   * Runs `body` in one transaction: all of its writes commit, or none do. Called inside another, it joins
   * that one (a throw rolls the whole of it back), without a savepoint of its own.
   */
  transaction<T>(body: () => T): T {
    if (this.db.inTransaction) return body();
    this.runInTransaction ??= this.db.transaction((run: () => unknown) => run());
    return this.runInTransaction(body) as T;
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
