import { ConfigError } from '../config/load.js';
import type { Profile } from '../profile/types.js';
import { READER_TOOLS, WRITER_TOOLS } from '../tool/names.js';
import contractTemplate from './prompts/coordinator.txt';

export const DISPATCH_STRATEGIES = ['off', 'optional', 'full'] as const;
export type DispatchStrategy = (typeof DISPATCH_STRATEGIES)[number];

export interface Coordination {
  /** The strategy in force: `off` when the configured one could not be honoured. */
  strategy: DispatchStrategy;
  readonly: Profile[];
  readwrite: Profile[];
  warnings: string[];
}

export interface CoordinationInput {
  /** `subagent_dispatch_strategy` as configured (any string: it is validated here). */
  configured: string | undefined;
  profiles: readonly Profile[];
  /** Whether the main agent may dispatch this profile (no `task(<name>)` rule denies it). */
  dispatchable(profile: Profile): boolean;
  /** The built-in tools a subagent of this profile really gets: tier, allow/deny, floor and gate applied. */
  toolsOf(profile: Profile): readonly string[];
}

const READERS: ReadonlySet<string> = new Set(READER_TOOLS);
const WRITERS: ReadonlySet<string> = new Set(WRITER_TOOLS);

/**
 * Start-up resolution of `subagent_dispatch_strategy` (SPEC 8). Coordination needs a dispatchable profile
 * of each tooled tier that keeps a tool of that tier once everything that narrows it has been applied.
 * An invalid value is `off` with a warning; `optional` without both tiers warns and turns off; `full`
 * without them is a configuration error (exit 2) naming the missing tier.
 */
export function resolveCoordination(input: CoordinationInput): Coordination {
  const warnings: string[] = [];
  const value = input.configured ?? 'off';
  if (!(DISPATCH_STRATEGIES as readonly string[]).includes(value)) {
    warnings.push(
      `subagent_dispatch_strategy "${value}" is not one of ${DISPATCH_STRATEGIES.join(', ')}; coordinated dispatch is off`,
    );
    return { strategy: 'off', readonly: [], readwrite: [], warnings };
  }
  const strategy = value as DispatchStrategy;
  if (strategy === 'off') return { strategy, readonly: [], readwrite: [], warnings };
  const usable = input.profiles.filter((p) => input.dispatchable(p));
  const keeps = (profile: Profile, kind: ReadonlySet<string>) =>
    input.toolsOf(profile).some((tool) => kind.has(tool));
  const readonly = usable.filter((p) => p.tier === 'readonly' && keeps(p, READERS));
  const readwrite = usable.filter((p) => p.tier === 'readwrite' && keeps(p, WRITERS));
  const missing = [
    ...(readonly.length === 0 ? ['readonly'] : []),
    ...(readwrite.length === 0 ? ['readwrite'] : []),
  ];
  if (missing.length === 0) return { strategy, readonly, readwrite, warnings };
  const why =
    `coordinated dispatch needs a readonly and a readwrite profile with tools; missing tier: ${missing.join(', ')} ` +
    '(a profile counts when the main agent may dispatch it and it keeps a tool of its tier after the safety floor, its allow/deny lists and the permission rules)';
  if (strategy === 'full') throw new ConfigError(`subagent_dispatch_strategy "full": ${why}`);
  warnings.push(`subagent_dispatch_strategy "optional": ${why}; coordinated dispatch is off`);
  return { strategy: 'off', readonly: [], readwrite: [], warnings };
}

function listing(profiles: readonly Profile[]): string {
  return profiles.map((p) => `- ${p.name}: ${p.description ?? `${p.tier} subagent`}`).join('\n');
}

const STRATEGY_RULES: Record<Exclude<DispatchStrategy, 'off'>, string> = {
  optional:
    'You may do small work yourself; when you delegate, do it through coordinated background batches.',
  full: 'Delegate substantive work as coordinated background tasks; keep your own work to planning, reconciling and final verification.',
};

/** The coordinator contract added to the system prompt while coordination is on (SPEC 8). */
export function coordinatorContract(coordination: Coordination): string {
  if (coordination.strategy === 'off') return '';
  return contractTemplate
    .replace('{{strategy}}', STRATEGY_RULES[coordination.strategy])
    .replace('{{readonly}}', listing(coordination.readonly))
    .replace('{{readwrite}}', listing(coordination.readwrite))
    .trim();
}
