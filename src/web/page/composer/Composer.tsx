import { useEffect, useRef, useState } from 'preact/hooks';
import type { QueuedPrompt } from '../../../controller/types.js';

interface Props {
  running: boolean;
  /** One-line summaries of the slash commands, by name, shown beside their completions. */
  summaries: ReadonlyMap<string, string>;
  queue: QueuedPrompt[];
  complete(line: string): Promise<string[]>;
  send(text: string): Promise<boolean>;
  stop(): void;
  cancelQueued(id: string): void;
}

/** Completions are asked for after typing pauses this long. */
const COMPLETION_DELAY_MS = 60;

/**
 * The prompt box: Enter sends (Shift+Enter for a new line), a leading `/` offers the slash commands and
 * their arguments (↑/↓ to choose, Tab or Enter on a chosen one to take it, Esc to close), Stop interrupts.
 * A prompt sent while a turn runs waits in the session's queue, shown here and cancellable.
 */
export function Composer({ running, summaries, queue, complete, send, stop, cancelQueued }: Props) {
  const [text, setText] = useState('');
  const [options, setOptions] = useState<string[]>([]);
  const [chosen, setChosen] = useState(-1);
  const box = useRef<HTMLTextAreaElement>(null);
  const asked = useRef(0);

  useEffect(() => {
    if (!text.startsWith('/') || text.includes('\n')) {
      setOptions([]);
      return;
    }
    const ticket = ++asked.current;
    const timer = setTimeout(async () => {
      const found = await complete(text).catch(() => []);
      if (ticket !== asked.current) return;
      setOptions(found.filter((option) => option !== text.trimEnd()).slice(0, 12));
      setChosen(-1);
    }, COMPLETION_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, complete]);

  const take = (option: string) => {
    setText(`${option} `);
    setOptions([]);
    box.current?.focus();
  };
  const submit = async () => {
    const value = text.trim();
    if (value === '') return;
    setOptions([]);
    if (await send(value)) setText('');
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (options.length > 0) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        // -1 is "none chosen": the cycle runs none, first, …, last, none.
        setChosen((current) => ((current + 1 + step + options.length + 1) % (options.length + 1)) - 1);
        return;
      }
      if (event.key === 'Tab' || (event.key === 'Enter' && chosen >= 0)) {
        event.preventDefault();
        take(options[Math.max(0, chosen)]);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setOptions([]);
        return;
      }
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void submit();
    }
    if (event.key === 'Escape' && running) stop();
  };

  const listId = 'slash-completions';
  return (
    <div class="composer">
      {queue.length > 0 && (
        <ul class="queue" aria-label="Queued prompts">
          {queue.map((prompt) => (
            <li key={prompt.id}>
              <span class="dim">Queued, sent when the running turn ends:</span>{' '}
              <span class="queued-text">{prompt.text}</span>
              <button type="button" class="small" onClick={() => cancelQueued(prompt.id)}>
                Remove from queue
              </button>
            </li>
          ))}
        </ul>
      )}
      {options.length > 0 && (
        <div class="completions" id={listId} role="listbox" aria-label="Commands">
          {options.map((option, index) => (
            <div
              key={option}
              id={`${listId}-${index}`}
              role="option"
              tabIndex={-1}
              aria-selected={index === chosen}
              class={index === chosen ? 'chosen' : undefined}
              onMouseDown={(event) => {
                event.preventDefault();
                take(option);
              }}
            >
              {option}
              {summaries.has(option.slice(1)) && <span class="dim"> {summaries.get(option.slice(1))}</span>}
            </div>
          ))}
        </div>
      )}
      <div class="composer-row">
        <textarea
          ref={box}
          aria-label="Message"
          placeholder={
            running
              ? 'A turn is running: a message now waits in the queue'
              : 'Message (Enter sends, / for commands)'
          }
          rows={3}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          onKeyDown={onKeyDown}
          aria-autocomplete="list"
          aria-controls={options.length > 0 ? listId : undefined}
          aria-activedescendant={chosen >= 0 ? `${listId}-${chosen}` : undefined}
        />
        <div class="composer-buttons">
          <button type="button" class="primary" onClick={() => void submit()} disabled={text.trim() === ''}>
            Send
          </button>
          <button type="button" class="danger" onClick={stop} disabled={!running}>
            Stop
          </button>
        </div>
      </div>
    </div>
  );
}
