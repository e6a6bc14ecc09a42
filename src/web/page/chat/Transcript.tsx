import { memo } from 'preact/compat';
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { TranscriptEntry } from '../../transcript/types.js';
import { ToolCard } from '../tools/ToolCard.js';
import { Markdown } from './Markdown.js';

const Entry = memo(function Entry({ entry }: { entry: TranscriptEntry }) {
  switch (entry.kind) {
    case 'user':
      return (
        <article class="msg msg-user" aria-label="You">
          <div class="msg-text">{entry.text}</div>
          {entry.origin === 'queued' && <div class="dim">sent from the queue</div>}
        </article>
      );
    case 'assistant':
      return (
        <article class="msg msg-assistant" aria-label="Assistant">
          {entry.reasoning !== '' && (
            <details class="reasoning">
              <summary>Thinking</summary>
              <div class="reasoning-text">{entry.reasoning}</div>
            </details>
          )}
          {entry.text !== '' && <Markdown text={entry.text} />}
        </article>
      );
    case 'tool':
      return <ToolCard entry={entry} />;
    case 'command':
      return (
        <article
          class={`msg msg-command${entry.isError ? ' is-error' : ''}`}
          aria-label={`/${entry.command}`}
        >
          <pre>{entry.text}</pre>
        </article>
      );
    case 'review':
      return (
        <article class="msg msg-command" aria-label="Session review">
          <div class="dim">
            Session review by {entry.reviewer} ({entry.files.length} file(s) changed)
          </div>
          <Markdown text={entry.findings} />
        </article>
      );
    case 'notice':
      return (
        <p class={`notice notice-${entry.level}`} role={entry.level === 'error' ? 'alert' : undefined}>
          {entry.text}
        </p>
      );
  }
});

/** The conversation; it follows new output while the reader is at the bottom. */
export function Transcript({ entries }: { entries: TranscriptEntry[] }) {
  const scroller = useRef<HTMLElement>(null);
  const pinned = useRef(true);
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  });
  const onScroll = () => {
    const element = scroller.current;
    if (element) pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
  };
  return (
    // Focusable so a keyboard user can scroll it.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
    <section class="transcript" ref={scroller} onScroll={onScroll} tabIndex={0} aria-label="Conversation">
      {entries.length === 0 && <p class="empty">Ask anything. Type / for commands.</p>}
      {entries.map((entry) => (
        <Entry entry={entry} key={entry.id} />
      ))}
    </section>
  );
}
