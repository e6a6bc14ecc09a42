import type { ModelMessage } from 'ai';
import { decodeMessage, encodeMessage, titleFrom } from './message-codec.js';
import type { StoreContext } from './sql.js';

export interface StoredMessage {
  turn: number;
  message: ModelMessage;
}

export interface MessagesTable {
  /**
   * Appends one completed turn (the model's messages and the tool results) in one transaction, so a
   * crash loses at most the turn in flight. Sets the session's title from its first user message.
   */
  appendMessages(sessionId: string, messages: readonly ModelMessage[], turn: number): void;
  /** The conversation in the order appended, ready to hand back to the model. */
  loadMessages(sessionId: string): ModelMessage[];
  /** The same, each with its turn number. */
  loadTurns(sessionId: string): StoredMessage[];
  /** The highest turn stored, or null when the session has no messages (a resumed run continues after it). */
  lastTurn(sessionId: string): number | null;
}

export function messagesTable({ sql, now }: StoreContext): MessagesTable {
  const loadTurns = (sessionId: string): StoredMessage[] =>
    sql
      .all<{ turn: number; message: string }>(
        'SELECT turn, message FROM messages WHERE session_id = ? ORDER BY id',
        sessionId,
      )
      .map((row) => ({ turn: row.turn, message: decodeMessage(row.message) }));

  return {
    appendMessages(sessionId, messages, turn) {
      // Encoded before the transaction opens: a message that cannot be serialised fails the call
      // without holding the write lock other processes wait on.
      const encoded = messages.map((message) => ({ role: message.role, json: encodeMessage(message) }));
      const title = titleFrom(messages);
      const at = now();
      sql.transaction(() => {
        for (const { role, json } of encoded) {
          sql.run(
            'INSERT INTO messages (session_id, turn, role, message, created_at) VALUES (?, ?, ?, ?, ?)',
            sessionId,
            turn,
            role,
            json,
            at,
          );
        }
        sql.run(
          'UPDATE sessions SET updated_at = ?, title = coalesce(title, ?) WHERE id = ?',
          at,
          title,
          sessionId,
        );
      });
    },

    loadMessages(sessionId) {
      return loadTurns(sessionId).map((stored) => stored.message);
    },

    loadTurns,

    lastTurn(sessionId) {
      const row = sql.get<{ turn: number | null }>(
        'SELECT max(turn) AS turn FROM messages WHERE session_id = ?',
        sessionId,
      );
      return row?.turn ?? null;
    },
  };
}
