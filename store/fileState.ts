// What lets a start trust a stamp it computed before (store/publishIdentity.ts) instead of
// hashing every input row again: the database file's state, and which statements may have
// changed an input table.
//
// The state is the file's device, inode, size, modification and change times (nanoseconds)
// and a hash of DuckDB's headers (the first 12 KiB: every checkpoint writes a new iteration
// there), taken only when no write-ahead log is beside it (a log holds changes the file does
// not show yet). Any change through DuckDB either leaves a log or checkpoints, and any other
// write moves the change time, which no program can set back.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

/** DuckDB's main header and its two database headers. */
const HEADER_BYTES = 12 * 1024;

/** The closed file's state (see above), or null: no file, a write-ahead log beside it, ':memory:'. */
export function fileState(path: string): string | null {
  if (path === ':memory:' || existsSync(`${path}.wal`)) return null;
  try {
    const s = statSync(path, { bigint: true });
    const fd = openSync(path, 'r');
    const header = Buffer.alloc(HEADER_BYTES);
    try {
      readSync(fd, header, 0, HEADER_BYTES, 0);
    } finally {
      closeSync(fd);
    }
    return [s.dev, s.ino, s.size, s.mtimeNs, s.ctimeNs, createHash('sha256').update(header).digest('hex')].join(':');
  } catch {
    return null;
  }
}

/** Statements that change no table of the database file. */
const READS = new Set([
  'SELECT',
  'FROM',
  'VALUES',
  'SET',
  'RESET',
  'PRAGMA',
  'CHECKPOINT',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  'ABORT',
  'EXPLAIN',
  'DESCRIBE',
  'SHOW',
  'SUMMARIZE',
]);

const NAME = String.raw`([\w."]+)`;
const TARGETS: [RegExp, number][] = [
  [new RegExp(String.raw`^INSERT\s+(?:OR\s+\w+\s+)?INTO\s+${NAME}`, 'i'), 1],
  [new RegExp(String.raw`^UPDATE\s+${NAME}`, 'i'), 1],
  [new RegExp(String.raw`^DELETE\s+FROM\s+${NAME}`, 'i'), 1],
  [new RegExp(String.raw`^TRUNCATE\s+(?:TABLE\s+)?${NAME}`, 'i'), 1],
  [new RegExp(String.raw`^COPY\s+${NAME}\s+FROM\b`, 'i'), 1],
  [new RegExp(String.raw`^ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?${NAME}`, 'i'), 1],
  [new RegExp(String.raw`^DROP\s+\w+\s+(?:IF\s+EXISTS\s+)?${NAME}`, 'i'), 1],
  [new RegExp(String.raw`^CREATE\s+(?:OR\s+REPLACE\s+)?(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?[\w."]+\s+ON\s+${NAME}`, 'i'), 1],
  [new RegExp(String.raw`^CREATE\s+(?:OR\s+REPLACE\s+)?\w+\s+(?:IF\s+NOT\s+EXISTS\s+)?${NAME}`, 'i'), 1],
];

/** A table's name as writtenTable gives it: lower case, without schema or quotes. */
export const tableName = (name: string): string => name.replace(/"/g, '').split('.').pop()!.toLowerCase();

/**
 * The table a statement may change, lower case without schema or quotes: null when it changes
 * none (a read, a setting, a temporary table), '*' when it cannot tell (several statements, a
 * WITH … INSERT, an unknown verb). Callers treat '*' as "any table".
 */
export function writtenTable(sql: string): string | null {
  const text = sql.replace(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)+/, '');
  const rest = text.indexOf(';');
  if (rest >= 0 && text.slice(rest + 1).trim() !== '') return '*';
  const verb = /^\w+/.exec(text)?.[0].toUpperCase() ?? '';
  if (READS.has(verb)) return null;
  if (verb === 'WITH') return /\b(?:INSERT|UPDATE|DELETE|MERGE)\b/i.test(text) ? '*' : null;
  if (/^CREATE\s+(?:OR\s+REPLACE\s+)?TEMP(?:ORARY)?\s/i.test(text)) return null;
  for (const [re, group] of TARGETS) {
    const m = re.exec(text);
    if (m) return tableName(m[group]!);
  }
  return '*';
}
