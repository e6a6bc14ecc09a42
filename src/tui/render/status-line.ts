import stringWidth from 'string-width';
import type { Theme } from '../theme.js';

/** What the status line shows: a structural subset of the controller's state snapshot. */
export interface StatusInfo {
  model: { label: string; contextWindow: number };
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
  text: string;
  /** Narrow terminals drop the lowest first. */
  priority: number;
  short?: string;
  paint?: (text: string) => string;
}

/**
 * One line: model, profile and prompt layer, safety floor, context used (tokens and % of the window) and cost,
 * fitted to the width by shortening, then dropping, the least important parts.
 */
export function renderStatusLine(info: StatusInfo, width: number, theme: Theme): string {
  const { style, glyphs } = theme;
  const window = info.model.contextWindow;
  const percent = window > 0 ? Math.min(100, Math.round((info.contextTokens / window) * 100)) : 0;
  const segments: Segment[] = [
    {
      text: info.model.label + (info.effort ? ` (${info.effort})` : ''),
      short: info.model.label,
      priority: 9,
    },
    {
      text: `agent ${info.profile ?? 'default'}`,
      short: info.profile ?? 'default',
      priority: 8,
      paint: info.profile ? style.magenta : undefined,
    },
  ];
  if (info.prompt) segments.push({ text: `prompt ${info.prompt}`, short: info.prompt, priority: 6 });
  if (info.planMode) segments.push({ text: 'plan mode', short: 'plan', priority: 7, paint: style.cyan });
  segments.push(
    {
      text: `safety ${info.safety}`,
      short: info.safety,
      priority: 7,
      paint: info.safety === 'full' ? undefined : style.yellow,
    },
    {
      text: `ctx ${compactCount(info.contextTokens)}/${compactCount(window)} (${percent}%)`,
      short: `${percent}%`,
      priority: 5,
      paint: percent >= 90 ? style.red : percent >= 75 ? style.yellow : undefined,
    },
    { text: formatCost(info.costUsd), priority: 4 },
  );
  const separator = ` ${glyphs.dot} `;
  const pick = (s: Segment, useShort: boolean) => (useShort && s.short ? s.short : s.text);
  const join = (parts: Segment[], useShort: boolean) => parts.map((s) => pick(s, useShort)).join(separator);
  let parts = segments;
  let useShort = false;
  while (stringWidth(join(parts, useShort)) > width) {
    if (!useShort) {
      useShort = true;
      continue;
    }
    if (parts.length <= 1) break;
    const lowest = Math.min(...parts.map((p) => p.priority));
    parts = parts.filter((p) => p.priority !== lowest);
  }
  const line = join(parts, useShort);
  if (stringWidth(line) > width)
    return style.dim(line.slice(0, Math.max(0, width - 1)) + glyphs.ellipsis.slice(0, 1));
  return parts.map((s) => (s.paint ?? style.dim)(pick(s, useShort))).join(style.dim(separator));
}
