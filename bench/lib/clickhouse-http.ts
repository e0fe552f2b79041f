/**
 * The few raw ClickHouse calls the search bench needs (create/drop its database, bulk insert,
 * watch merges), over the HTTP interface with fetch. Statements take values only through
 * src/stores/captures/sql-quote.ts.
 */
import { quoteIdentifier } from '../../src/stores/captures/sql-quote';

export class ClickHouseHttp {
  readonly db: string;

  constructor(
    private readonly url: string,
    database: string,
  ) {
    this.db = quoteIdentifier(database);
  }

  /** Runs one statement; returns the response text. */
  async exec(sql: string, body?: string): Promise<string> {
    const target = new URL(this.url);
    if (body !== undefined) target.searchParams.set('query', sql);
    const res = await fetch(target, { method: 'POST', body: body ?? sql });
    const text = await res.text();
    if (!res.ok) throw new Error(`clickhouse ${res.status}: ${text.slice(0, 500)}\n  in: ${sql.slice(0, 300)}`);
    return text;
  }

  async rows<T>(sql: string): Promise<T[]> {
    const text = await this.exec(`${sql} FORMAT JSONEachRow`);
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as T);
  }

  /** One INSERT of ready JSONEachRow text: a single part per partition it touches. */
  async insertJsonEachRow(table: string, text: string): Promise<void> {
    await this.exec(`INSERT INTO ${this.db}.${quoteIdentifier(table)} FORMAT JSONEachRow`, text);
  }
}
