/** Test support: damage a real SQLite file the way a bad disk or a stray write would. */
import { closeSync, openSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';

/** Overwrite the root page of `table` with garbage; the header and schema stay readable. */
export function damageTableRootPage(path: string, table: string): void {
  const db = new Database(path);
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const row = db.prepare(`SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) as
    { rootpage: number } | undefined;
  db.close();
  if (!row) throw new Error(`no table ${table}`);
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (row.rootpage - 1) * pageSize);
  closeSync(fd);
}
