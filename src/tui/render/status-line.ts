import stringWidth from 'string-width';
import type { Theme } from '../theme.js';
import { truncate } from './box.js';

/** What the status line shows: a structural subset of the controller's state snapshot. */
export interface StatusInfo {
  model: { label: string; model: string; contextWindow: number };
  profile: string | null;
  prompt: string | null;
  planMode: boolean;
  safety: string;
  effort: string | null;
  contextTokens: number;
  costUsd: number | null;
}

/** 1234 → 1.2k, 200000 → 200k. */
export function compactCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

export function formatCost(costUsd: number | null): string {
  if (costUsd === null) return '$?';
  if (costUsd === 0) return '$0';
  return costUsd < 0.01 ? `$${costUsd.toFixed(4)}` : `$${costUsd.toFixed(2)}`;
}

interface Segment {
  key: 'model' | 'profile' | 'prompt' | 'plan' | 'safety' | 'context' | 'cost';
  text: string;
  paint?: (text: string) => string;
}

/**
 * One line: model, profile and prompt layer, safety floor, context used (tokens and % of the window) and cost,
 * fitted to the width by shortening, then dropping, the least important parts in a fixed order.
 */
export function renderStatusLine(info: StatusInfo, width: number, theme: Theme): string {
  const { style, glyphs } = theme;
  const window = info.model.contextWindow;
  const percent = window > 0 ? Math.min(100, Math.round((info.contextTokens / window) * 100)) : 0;
  const effort = info.effort ? ` (${info.effort})` : '';
  let segments: Segment[] = [
    { key: 'model', text: info.model.label + effort },
    {
      key: 'profile',
      text: `agent ${info.profile ?? 'default'}`,
      paint: info.profile ? style.magenta : undefined,
    },
  ];
  if (info.prompt) segments.push({ key: 'prompt', text: `prompt ${info.prompt}` });
  if (info.planMode) segments.push({ key: 'plan', text: 'plan mode', paint: style.cyan });
  segments.push(
    {
      key: 'safety',
      text: `safety ${info.safety}`,
      paint: info.safety === 'full' ? undefined : style.yellow,
    },
    {
      key: 'context',
      text: `ctx ${compactCount(info.contextTokens)}/${compactCount(window)} (${percent}%)`,
      paint: percent >= 90 ? style.red : percent >= 75 ? style.yellow : undefined,
    },
    { key: 'cost', text: formatCost(info.costUsd) },
  );
  const set = (key: Segment['key'], text: string) => {
    segments = segments.map((s) => (s.key === key ? { ...s, text } : s));
  };
  const drop = (key: Segment['key']) => {
    segments = segments.filter((s) => s.key !== key);
  };
  const separator = ` ${glyphs.dot} `;
  const plain = () => segments.map((s) => s.text).join(separator);
  const steps: (() => unknown)[] = [
    () => set('model', info.model.model + effort),
    () => set('context', `ctx ${percent}%`),
    () => set('model', info.model.model),
    () => set('prompt', info.prompt ?? ''),
    () => drop('cost'),
    () => set('safety', info.safety),
    () => set('profile', info.profile ?? 'default'),
    () => drop('context'),
    () => drop('plan'),
    () => drop('prompt'),
    // The default floor says least; a narrowed one stays to the end.
    () => info.safety === 'full' && drop('safety'),
  ];
  for (const step of steps) {
    if (stringWidth(plain()) <= width) break;
    step();
  }
  const line = plain();
  if (stringWidth(line) > width) return style.dim(truncate(line, width, glyphs.ellipsis));
  return segments.map((s) => (s.paint ?? style.dim)(s.text)).join(style.dim(separator));
}
