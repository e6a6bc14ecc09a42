import type { Key } from 'ink';
import type { TraceEntry } from '../../permission/types.js';
import * as E from '../input/editor.js';
import { renderEditor } from '../input/editor-view.js';
import { frame, wrapLines } from '../render/box.js';
import { callDiffText, renderUnifiedDiff } from '../render/diff.js';
import type { Theme } from '../theme.js';

/** The pending ask the modal shows: a structural subset of the controller's PendingAsk. */
export type AskView = { id: string; label: string } & (
  | {
      kind: 'permission';
      permission: {
        tool: string;
        input: unknown;
        suggestedRule: string;
        decision: { reason: string; trace: readonly TraceEntry[] };
      };
    }
  | { kind: 'question'; question: string; options?: string[] }
  | { kind: 'plan'; plan: string }
);

/** What the user answered: the controller's UserAnswer. */
export type AskAnswerView =
  | { kind: 'allow_once' }
  | { kind: 'always' }
  | { kind: 'deny' }
  | { kind: 'deny_feedback'; feedback: string }
  | { kind: 'answer'; text: string };

interface Choice {
  key: string;
  label: string;
  /** The answer it gives at once; absent: it opens a line to type a message (or an answer). */
  answer?: AskAnswerView;
  typed?: 'deny_feedback' | 'answer';
}

export interface AskModalState {
  selected: number;
  showTrace: boolean;
  /** A message being typed (deny with a message, or a free answer to a question). */
  typing: { editor: E.EditorState; as: 'deny_feedback' | 'answer' } | null;
}

export const INITIAL_ASK_STATE: AskModalState = { selected: 0, showTrace: false, typing: null };

/** The numbered choices, as Claude Code users know them for permissions: 1 once, 2 always, 3 deny, 4 deny+say. */
export function askChoices(ask: AskView): Choice[] {
  switch (ask.kind) {
    case 'permission':
      return [
        { key: '1', label: 'Allow once', answer: { kind: 'allow_once' } },
        {
          key: '2',
          label: `Always allow ${ask.permission.suggestedRule} (this session)`,
          answer: { kind: 'always' },
        },
        { key: '3', label: 'Deny', answer: { kind: 'deny' } },
        { key: '4', label: 'Deny and tell the model why', typed: 'deny_feedback' },
      ];
    case 'plan':
      return [
        { key: '1', label: 'Approve the plan', answer: { kind: 'allow_once' } },
        { key: '2', label: 'Keep planning (deny)', answer: { kind: 'deny' } },
        { key: '3', label: 'Deny and tell the model what to change', typed: 'deny_feedback' },
      ];
    case 'question': {
      const options = (ask.options ?? []).map(
        (option, i): Choice => ({
          key: String(i + 1),
          label: option,
          answer: { kind: 'answer', text: option },
        }),
      );
      return [...options, { key: String(options.length + 1), label: 'Type an answer', typed: 'answer' }];
    }
  }
}

function startTyping(as: 'deny_feedback' | 'answer', state: AskModalState): AskModalState {
  return { ...state, typing: { editor: E.EMPTY_EDITOR, as } };
}

function choose(choice: Choice, state: AskModalState): { state: AskModalState } | { answer: AskAnswerView } {
  if (choice.answer) return { answer: choice.answer };
  return { state: startTyping(choice.typed ?? 'deny_feedback', state) };
}

/**
 * One key in the modal: digits pick a choice, arrows move, Enter confirms, `t` shows the decision trace, Esc
 * denies (or leaves the message being typed). Returns the next state, or the answer once one is given.
 */
export function askModalKey(
  ask: AskView,
  state: AskModalState,
  input: string,
  key: Key,
): { state: AskModalState } | { answer: AskAnswerView } {
  const choices = askChoices(ask);
  if (state.typing) {
    const { editor, as } = state.typing;
    const typing = (next: E.EditorState) => ({ state: { ...state, typing: { editor: next, as } } });
    if (key.escape) {
      // A question typed straight away (it has no options) has nothing to go back to.
      return choices.length === 1 ? { answer: { kind: 'deny' } } : { state: { ...state, typing: null } };
    }
    if (key.return && !key.shift && !key.meta) {
      const text = editor.text.trim();
      if (text === '') return { state };
      return {
        answer: as === 'answer' ? { kind: 'answer', text } : { kind: 'deny_feedback', feedback: text },
      };
    }
    if (key.backspace || key.delete) return typing(E.backspace(editor));
    if (key.leftArrow) return typing(E.moveLeft(editor));
    if (key.rightArrow) return typing(E.moveRight(editor));
    if (key.ctrl && input === 'u') return typing(E.deleteToLineStart(editor));
    if (key.ctrl && input === 'w') return typing(E.deleteWordBefore(editor));
    if (key.ctrl || key.tab || key.upArrow || key.downArrow) return { state };
    if (input) return typing(E.insert(editor, input.replace(/[\r\n]+/g, ' ')));
    return { state };
  }
  if (key.escape) return { answer: { kind: 'deny' } };
  if (key.upArrow)
    return { state: { ...state, selected: (state.selected - 1 + choices.length) % choices.length } };
  if (key.downArrow || key.tab)
    return { state: { ...state, selected: (state.selected + 1) % choices.length } };
  if (key.return) return choose(choices[state.selected], state);
  if (input === 't' && ask.kind === 'permission') return { state: { ...state, showTrace: !state.showTrace } };
  const picked = choices.findIndex((c) => c.key === input);
  if (picked !== -1) return choose(choices[picked], { ...state, selected: picked });
  return { state };
}

/** The exact call as `explain` and `/why` take it: `bash(git push origin main)`, `edit(src/a.ts)`. */
export function exactCall(tool: string, input: unknown): string {
  if (input && typeof input === 'object') {
    const record = input as Record<string, unknown>;
    const subject = record.command ?? record.path ?? record.url ?? record.pattern;
    if (typeof subject === 'string') return `${tool}(${subject})`;
  }
  return `${tool}(${JSON.stringify(input)})`;
}

function traceRows(trace: readonly TraceEntry[], theme: Theme): string[] {
  const { style } = theme;
  const layerWidth = Math.max(0, ...trace.map((entry) => entry.layer.length));
  return trace.map((entry) => {
    const action = (entry.action ?? '').padEnd(5);
    const rule = entry.rule ? `${entry.rule} ` : '';
    const source = entry.source ? style.dim(`(${entry.source}) `) : '';
    return `${style.bold(entry.layer.padEnd(layerWidth))}  ${action}  ${rule}${source}${style.dim(entry.note)}`;
  });
}

const MAX_PREVIEW_ROWS = 10;

/** The modal's rows for a terminal `width` wide, at most `maxRows` high (the call preview gives way first). */
export function renderAskModal(
  ask: AskView,
  state: AskModalState,
  width: number,
  theme: Theme,
  maxRows = 24,
): string[] {
  const { style, glyphs } = theme;
  const inner = width - 4;
  const head: string[] = [];
  let title: string;
  let preview: string[] = [];
  if (ask.kind === 'permission') {
    const { tool, input, decision } = ask.permission;
    title = `Permission ${glyphs.dot} ${ask.label}`;
    head.push(style.bold(exactCall(tool, input)));
    const diff = callDiffText(tool, input);
    if (diff !== null) preview = renderUnifiedDiff(diff, inner, theme);
    head.push(style.dim(decision.reason));
  } else if (ask.kind === 'plan') {
    title = `Plan ${glyphs.dot} ${ask.label}`;
    preview = ask.plan.split('\n');
  } else {
    title = `Question ${glyphs.dot} ${ask.label}`;
    head.push(style.bold(ask.question));
  }
  const choices = askChoices(ask);
  const body: string[] = [];
  if (state.showTrace && ask.kind === 'permission') {
    body.push('', style.underline('Decision trace'), ...traceRows(ask.permission.decision.trace, theme));
  }
  body.push('');
  if (state.typing) {
    const prompt = state.typing.as === 'answer' ? 'Answer:' : 'Tell the model:';
    body.push(prompt, ...renderEditor(state.typing.editor, inner, theme));
    body.push('', style.dim(`enter send ${glyphs.dot} esc back`));
  } else {
    if (!(ask.kind === 'question' && choices.length === 1)) {
      choices.forEach((choice, i) => {
        const selected = i === state.selected;
        const row = `${selected ? glyphs.prompt : ' '} ${choice.key}. ${choice.label}`;
        body.push(selected ? style.cyan(row) : row);
      });
    }
    const keys = [`${glyphs.arrow.length === 1 ? '↑↓' : 'up/down'} select`, 'enter confirm', 'esc deny'];
    if (ask.kind === 'permission') keys.push(`t ${state.showTrace ? 'hide' : 'show'} trace`);
    body.push('', style.dim(keys.join(` ${glyphs.dot} `)));
  }
  const headRows = head.flatMap((row) => wrapLines(row, inner));
  const bodyRows = body.flatMap((row) => wrapLines(row, inner));
  // A question without options opens straight on its answer line.
  const room = Math.max(2, maxRows - 2 - headRows.length - bodyRows.length);
  const previewLimit = Math.min(room, MAX_PREVIEW_ROWS);
  const previewRows = preview.flatMap((row) => wrapLines(row, inner));
  const shownPreview =
    previewRows.length <= previewLimit
      ? previewRows
      : [
          ...previewRows.slice(0, previewLimit - 1),
          style.dim(`${glyphs.ellipsis} +${previewRows.length - previewLimit + 1} lines`),
        ];
  return frame([...headRows, ...shownPreview, ...bodyRows], width, theme, title);
}

/** A question without options goes straight to typing its answer. */
export function initialAskState(ask: AskView): AskModalState {
  return askChoices(ask).length === 1 ? startTyping('answer', INITIAL_ASK_STATE) : INITIAL_ASK_STATE;
}
