/**
 * The page's local database for `search_local_database`: a real SQLite database running inside
 * the page (sql.js, SQLite compiled to WebAssembly). It holds the same notes as the quick start's
 * Node client, so both answer the same searches.
 */
import initSqlJs from 'sql.js';
import type { Database, Statement } from 'sql.js';

/** One row of the `notes` table. */
export interface Note {
  id: number;
  title: string;
  body: string;
}

const NOTES: Array<[string, string]> = [
  ['Coffee beans', 'Order 1 kg of Ethiopian coffee beans from the roastery.'],
  ['Dentist', 'Appointment on Tuesday at 9:30.'],
  ['Coffee with Ana', 'Meet Ana at the corner café on Thursday to talk about the launch.'],
  ['Reading list', 'The Pragmatic Programmer; Designing Data-Intensive Applications.'],
  ['Groceries', 'Milk, oats, apples, 100% rye bread.'],
];

/** Longest query searched: a model's argument is input like any other, and is bounded. */
export const MAX_QUERY_LENGTH = 200;

/** The notes database of the page. */
export class NotesDatabase {
  private constructor(
    private readonly db: Database,
    private readonly search: Statement,
  ) {}

  /**
   * Loads SQLite's WebAssembly from `wasmUrl` (served beside the page, never from a CDN), creates
   * the `notes` table and fills it.
   */
  static async open(wasmUrl: string): Promise<NotesDatabase> {
    const SQL = await initSqlJs({ locateFile: () => wasmUrl });
    const db = new SQL.Database();
    db.run('CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO notes (title, body) VALUES (?, ?)');
    db.run('BEGIN');
    for (const [title, body] of NOTES) insert.run([title, body]);
    db.run('COMMIT');
    insert.free();
    const search = db.prepare("SELECT id, title, body FROM notes WHERE title LIKE ? ESCAPE '\\' OR body LIKE ? ESCAPE '\\' ORDER BY id");
    return new NotesDatabase(db, search);
  }

  /**
   * The notes whose title or body contains `query` (case-insensitive for ASCII). The query is a
   * bound parameter, never spliced into SQL; `%`, `_` and `\` in it match themselves.
   */
  find(query: string): Note[] {
    const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows: Note[] = [];
    this.search.bind([pattern, pattern]);
    try {
      while (this.search.step()) rows.push(this.search.getAsObject() as unknown as Note);
    } finally {
      this.search.reset();
    }
    return rows;
  }

  /** Every note, for the page to show what the database holds. */
  all(): Note[] {
    return this.find('');
  }

  /** SQLite's version, as the page shows it. */
  version(): string {
    const result = this.db.exec('SELECT sqlite_version()');
    return String(result[0]?.values[0]?.[0] ?? 'unknown');
  }
}
