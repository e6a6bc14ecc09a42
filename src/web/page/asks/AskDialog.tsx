import { useEffect, useRef, useState } from 'preact/hooks';
import { describeCall } from '../../../agent/describe-call.js';
import type { PendingAsk, UserAnswer } from '../../../controller/types.js';
import { Diff } from '../tools/Diff.js';
import { diffOfCall } from '../tools/diff-of-call.js';

interface Props {
  ask: PendingAsk;
  /** Asks waiting behind this one. */
  waiting: number;
  answer(answer: UserAnswer): Promise<void>;
}

/** The input beyond what the one-line call already says: a command in full, else the fields as JSON. */
function CallInput({ tool, input }: { tool: string; input: unknown }) {
  const fields = input && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  if (tool === 'bash' && typeof fields.command === 'string')
    return <pre class="ask-input">$ {fields.command}</pre>;
  return <pre class="ask-input">{JSON.stringify(input, null, 2)}</pre>;
}

function Subject({ ask }: { ask: PendingAsk }) {
  if (ask.kind === 'question') return <p class="ask-question">{ask.question}</p>;
  if (ask.kind === 'plan')
    return (
      <>
        <p>The agent proposes this plan and asks to leave plan mode:</p>
        <pre class="ask-plan">{ask.plan}</pre>
      </>
    );
  const { tool, input, decision, suggestedRule } = ask.permission;
  const diff = diffOfCall(tool, input);
  return (
    <>
      {diff && (
        <p class="ask-call">
          <code>{describeCall(tool, input)}</code>
        </p>
      )}
      {diff ? <Diff files={diff} /> : <CallInput tool={tool} input={input} />}
      <p class="dim">
        Why it asks: {decision.reason}
        <br />
        Always allow adds the session rule <code>{suggestedRule}</code>.
      </p>
    </>
  );
}

/**
 * The first pending ask (a permission, a question or a plan), from the main agent or any subagent, with the
 * asking chain. Answered here or in another tab, it leaves every tab. Not modal: Stop stays in reach, and
 * nothing is focused by default so a stray Enter approves nothing.
 */
export function AskDialog({ ask, waiting, answer }: Props) {
  const [reason, setReason] = useState('');
  const [reply, setReply] = useState('');
  const [needReason, setNeedReason] = useState(false);
  const [busy, setBusy] = useState(false);
  const dialog = useRef<HTMLDivElement>(null);
  const reasonBox = useRef<HTMLTextAreaElement>(null);
  // Each ask mounts a fresh dialog (keyed by its id), focused so Tab reaches its buttons first.
  useEffect(() => {
    dialog.current?.focus();
  }, []);

  const send = async (value: UserAnswer) => {
    setBusy(true);
    try {
      await answer(value);
    } finally {
      setBusy(false);
    }
  };
  const denyWithMessage = () => {
    if (reason.trim() === '') {
      setNeedReason(true);
      reasonBox.current?.focus();
      return;
    }
    void send({ kind: 'deny_feedback', feedback: reason.trim() });
  };
  const titleId = `ask-title-${ask.id}`;
  const title =
    ask.kind === 'question'
      ? 'The agent asks you'
      : ask.kind === 'plan'
        ? 'Approve the plan?'
        : 'Allow this call?';
  return (
    <div
      class="ask"
      role="dialog"
      aria-labelledby={titleId}
      aria-describedby={`${titleId}-chain`}
      tabIndex={-1}
      ref={dialog}
      onKeyDown={(event) => {
        if (event.key === 'Escape') dialog.current?.focus();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <p class="ask-chain" id={`${titleId}-chain`}>
        Asked by <strong>{ask.label}</strong>
        {ask.background && <span class="badge">background</span>}
        {waiting > 0 && <span class="dim"> · {waiting} more waiting</span>}
      </p>
      <Subject ask={ask} />
      {ask.kind === 'question' && (
        <form
          class="ask-reply"
          onSubmit={(event) => {
            event.preventDefault();
            if (reply.trim() !== '') void send({ kind: 'answer', text: reply.trim() });
          }}
        >
          {(ask.options ?? []).map((option) => (
            <button
              type="button"
              key={option}
              disabled={busy}
              onClick={() => send({ kind: 'answer', text: option })}
            >
              {option}
            </button>
          ))}
          <label>
            Your answer
            <input value={reply} onInput={(event) => setReply(event.currentTarget.value)} />
          </label>
          <button type="submit" disabled={busy || reply.trim() === ''}>
            Answer
          </button>
        </form>
      )}
      <label class="ask-reason">
        Reason for the model
        {needReason && <span class="hint"> (write it, then press Deny with message)</span>}
        <textarea
          ref={reasonBox}
          rows={1}
          value={reason}
          onInput={(event) => setReason(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) {
              event.preventDefault();
              denyWithMessage();
            }
          }}
        />
      </label>
      <div class="ask-buttons">
        {ask.kind !== 'question' && (
          <>
            <button
              type="button"
              class="primary"
              disabled={busy}
              onClick={() => send({ kind: 'allow_once' })}
            >
              Allow once
            </button>
            <button type="button" disabled={busy} onClick={() => send({ kind: 'always' })}>
              Always allow
            </button>
          </>
        )}
        <button type="button" class="danger" disabled={busy} onClick={() => send({ kind: 'deny' })}>
          Deny
        </button>
        <button type="button" class="danger" disabled={busy} onClick={denyWithMessage}>
          Deny with message
        </button>
      </div>
    </div>
  );
}
