import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Entries kept per project; the file is rewritten to this many once it holds twice as many. */
const KEEP = 1000;

/** Where a project's prompt history lives: in the global config dir, one file per project root. */
export function historyFile(globalDir: string, projectRoot: string): string {
  const key = createHash('sha256').update(projectRoot).digest('hex').slice(0, 16);
  return join(globalDir, 'history', `${key}.jsonl`);
}

function readEntries(file: string): { entries: string[]; torn: boolean } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { entries: [], torn: false };
  }
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'string' && value !== '') entries.push(value);
    } catch {
      // A torn or foreign line is skipped; the rest of the history stays usable.
    }
  }
  return { entries, torn: text !== '' && !text.endsWith('\n') };
}

/**
 * The prompts sent in a project, oldest first, persisted as one JSON string per line, and a cursor for walking
 * them with Up/Down that keeps the unsent draft to come back to.
 */
export class PromptHistory {
  private position: number | null = null;
  private draft = '';

  private constructor(
    private readonly file: string | null,
    private readonly entries: string[],
    private lines: number,
    /** The file ends inside a line (a write was cut short): the next entry starts on a fresh line. */
    private torn = false,
  ) {}

  static open(file: string): PromptHistory {
    const { entries, torn } = readEntries(file);
    return new PromptHistory(file, entries.slice(-KEEP), entries.length, torn);
  }

  static inMemory(entries: string[] = []): PromptHistory {
    return new PromptHistory(null, [...entries], entries.length);
  }

  get all(): readonly string[] {
    return this.entries;
  }

  /** Records a sent prompt (not a repeat of the last one) and resets the walk. */
  add(text: string): void {
    this.position = null;
    if (text.trim() === '' || this.entries[this.entries.length - 1] === text) return;
    this.entries.push(text);
    if (this.entries.length > KEEP) this.entries.splice(0, this.entries.length - KEEP);
    if (this.file === null) return;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      if (this.lines >= 2 * KEEP) {
        writeFileSync(this.file, this.entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
        this.lines = this.entries.length;
      } else {
        appendFileSync(this.file, `${this.torn ? '\n' : ''}${JSON.stringify(text)}\n`);
        this.torn = false;
        this.lines++;
      }
    } catch {
      // History is a convenience: an unwritable config dir must not break the session.
    }
  }

  /** Up: the previous entry, remembering `current` as the draft when the walk starts; null at the oldest. */
  previous(current: string): string | null {
    if (this.entries.length === 0) return null;
    if (this.position === null) {
      this.draft = current;
      this.position = this.entries.length;
    }
    if (this.position === 0) return null;
    this.position--;
    return this.entries[this.position];
  }

  /** Down: the next entry, then the draft again; null when not walking. */
  next(): string | null {
    if (this.position === null) return null;
    this.position++;
    if (this.position >= this.entries.length) {
      this.position = null;
      return this.draft;
    }
    return this.entries[this.position];
  }

  /** Any edit ends the walk: Up starts again from the newest entry. */
  reset(): void {
    this.position = null;
  }
}
