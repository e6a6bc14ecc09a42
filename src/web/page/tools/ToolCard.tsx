import { memo } from 'preact/compat';
import { describeCall } from '../../../agent/describe-call.js';
import type { TranscriptEntry } from '../../transcript/types.js';
import { Diff } from './Diff.js';
import { diffOfCall } from './diff-of-call.js';

type ToolEntry = Extract<TranscriptEntry, { kind: 'tool' }>;

/** Output longer than this starts collapsed. */
const SHORT_OUTPUT_LINES = 12;

const STATUS_TEXT = { running: 'running', done: 'done', error: 'failed' } as const;

/** One tool call: what was called, its diff when it changes files, and its output (collapsible). */
export const ToolCard = memo(function ToolCard({ entry }: { entry: ToolEntry }) {
  const diff = diffOfCall(entry.tool, entry.input);
  const output = entry.output ?? '';
  const short = output.split('\n').length <= SHORT_OUTPUT_LINES;
  return (
    <article class={`tool-card tool-${entry.status}`} aria-label={`Tool call ${entry.tool}`}>
      <header class="tool-head">
        <span class="tool-name">{entry.tool}</span>
        <code class="tool-summary">{describeCall(entry.tool, entry.input).slice(entry.tool.length + 1)}</code>
        <span class={`badge badge-${entry.status}`}>{STATUS_TEXT[entry.status]}</span>
        {entry.durationMs !== undefined && <span class="dim">{formatDuration(entry.durationMs)}</span>}
      </header>
      {diff && diff.length > 0 && (
        <details class="tool-diff" open>
          <summary>Changes</summary>
          <Diff files={diff} />
        </details>
      )}
      {!diff && entry.tool !== 'bash' && entry.input !== undefined && (
        <details class="tool-input">
          <summary>Input</summary>
          <pre>{JSON.stringify(entry.input, null, 2)}</pre>
        </details>
      )}
      {output !== '' && (
        <details class="tool-output" open={short || entry.status === 'error'}>
          <summary>Output ({output.split('\n').length} lines)</summary>
          <pre>{output}</pre>
        </details>
      )}
    </article>
  );
});

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  return `${Math.floor(seconds / 60)}m ${Math.round(seconds % 60)}s`;
}
