import { homedir } from 'node:os';
import { BUILTIN_TOOL_NAMES } from '../tool/names.js';
import type { PermissionSubject, SafetyClass } from '../tool/tool.js';
import { analyzeBash, type BashAnalysis } from './bash-analysis.js';
import {
  type AnalysedCall,
  decidePermission,
  floorAdmits,
  type HardDeny,
  type PermissionCeiling,
  type Policy,
  type PolicyLayer,
  type SafetyFloor,
  stricterFloor,
} from './decide.js';
import { toolMatches } from './match.js';
import { parseOperatorProfile } from './operator.js';
import { absolutePath, isInside, realPath } from './paths.js';
import { parseRule, parseRuleBlock, type Rule } from './rules.js';
import type { PermissionCall, PermissionDecision, PermissionGate } from './types.js';

/** A prompt's or profile's tool policy, turned into terminal denies (SPEC 6.4 step 2). */
export interface ToolPolicy {
  /** Who imposes it, e.g. `profile reviewer` or `prompt careful`. */
  owner: string;
  denyTools?: string[];
  /** Every built-in tool not listed is denied. */
  allowTools?: string[];
  source?: string;
}

export interface RuleBlockSource {
  file: string;
  /** The file's text, used to name each rule's line. */
  text?: string;
  /** The `permission` value as parsed from the file. */
  block: unknown;
}

export interface PermissionGateOptions {
  /** Project root (resolved through symlinks here again). */
  root: string;
  home?: string;
  safety: SafetyFloor;
  toolPolicies?: ToolPolicy[];
  /** Global config first, then project. */
  config?: RuleBlockSource[];
  profile?: RuleBlockSource & { name: string };
  /** `--permissions <file>`: the raw text, JSON or YAML. */
  operator?: { file: string; text: string };
  /** Inherited from the parent agent (SPEC 6.7). */
  ceiling?: PermissionCeiling;
  /** `--yes`: approve asks automatically (never denies, never paths outside the project). */
  yes: boolean;
  /** No user can answer asks (headless without --yes): asks become denies telling the model so. */
  headless?: boolean;
}

export interface CadrePermissionGate extends PermissionGate {
  /** What a child agent inherits: this gate's floor and operator denies, plus what this gate inherited. */
  readonly ceiling: PermissionCeiling;
  readonly policy: Policy;
  /** A gate for a subagent: its own composition under this gate's ceiling. */
  narrowFor(child: Omit<PermissionGateOptions, 'ceiling'>): CadrePermissionGate;
  /** The pure decision for a call whose bash command (if any) was analysed already. */
  decideAnalysed(analysed: AnalysedCall): PermissionDecision;
  analyze(call: PermissionCall): Promise<AnalysedCall>;
  sessionRules(): Rule[];
}

/** Tools whose calls are harmless by themselves and allowed unless a rule says otherwise. */
const BUILT_IN_ALLOWS = [
  'repo_overview',
  'skill',
  'write_todo_list',
  'question',
  'plan_enter',
  'plan_exit',
  'task',
  'task_status',
  'fleet',
  'bash_output',
];

export function builtInLayer(): PolicyLayer {
  return {
    name: 'built-in',
    label: 'built-in defaults',
    rules: BUILT_IN_ALLOWS.map((t) => parseRule(t, 'built-in')),
  };
}

export function hardDeniesFor(policies: ToolPolicy[]): HardDeny[] {
  const denies: HardDeny[] = [];
  for (const policy of policies) {
    const base = { owner: policy.owner, source: policy.source };
    for (const tool of policy.denyTools ?? []) denies.push({ ...base, tool, list: 'deny_tools' });
    if (policy.allowTools) {
      const allowed = policy.allowTools;
      for (const tool of BUILTIN_TOOL_NAMES) {
        if (!allowed.some((a) => toolMatches(a, tool))) denies.push({ ...base, tool, list: 'allow_tools' });
      }
    }
  }
  return denies;
}

/** Builds the gate every tool call passes through (SPEC 6). Throws PermissionRuleError on a bad block. */
export function createPermissionGate(options: PermissionGateOptions): CadrePermissionGate {
  const root = realPath(options.root);
  const home = options.home ?? homedir();
  const layers: PolicyLayer[] = [builtInLayer()];
  for (const config of options.config ?? []) {
    layers.push({
      name: 'config',
      label: `config ${config.file}`,
      rules: parseRuleBlock(config.block, config.file, config.text).rules,
    });
  }
  if (options.profile) {
    const { name, file, text, block } = options.profile;
    layers.push({
      name: 'profile',
      label: `profile ${name}`,
      rules: parseRuleBlock(block, file, text).rules,
    });
  }
  const operator = options.operator
    ? parseOperatorProfile(options.operator.file, options.operator.text)
    : undefined;
  if (operator && options.operator) {
    layers.push({
      name: 'operator',
      label: `operator profile ${options.operator.file}`,
      rules: operator.rules,
    });
  }
  const session: PolicyLayer = { name: 'session', label: 'session approvals', rules: [] };
  layers.push(session);

  const inherited = options.ceiling ?? { floor: 'full', denies: [] };
  const floor = stricterFloor(options.safety, inherited.floor);
  const policy: Policy = {
    root,
    home,
    floor,
    hardDenies: hardDeniesFor(options.toolPolicies ?? []),
    layers,
    ceiling: inherited,
    yes: options.yes,
    headless: options.headless ?? false,
  };
  const ceiling: PermissionCeiling = { floor, denies: [...inherited.denies, ...(operator?.deny ?? [])] };

  const analyze = async (call: PermissionCall): Promise<AnalysedCall> => {
    if (call.subject.kind === 'bash') {
      const bash: BashAnalysis = await analyzeBash(call.subject.command, root, home);
      return { call, bash };
    }
    return { call: { ...call, subject: resolveSubject(call.subject, root, home) } };
  };
  const decideAnalysed = (analysed: AnalysedCall) => decidePermission(policy, analysed);

  return {
    ceiling,
    policy,
    visibleTools(tools: { name: string; safety: SafetyClass }[]): string[] {
      return tools
        .filter((tool) => tool.name === 'bash' || floorAdmits(floor, tool.safety))
        .filter((tool) => !policy.hardDenies.some((deny) => toolMatches(deny.tool, tool.name)))
        .map((tool) => tool.name);
    },
    async decide(call: PermissionCall): Promise<PermissionDecision> {
      const analysed = await analyze(call);
      return withGrants(decideAnalysed(analysed), analysed, root);
    },
    approve(rule: string): void {
      session.rules.push(parseRule(rule, 'session approval', 'allow'));
    },
    narrowFor(child) {
      return createPermissionGate({ ...child, ceiling });
    },
    decideAnalysed,
    analyze,
    sessionRules: () => [...session.rules],
  };
}

/** The outside paths a bash call writes, carried with a decision that lets it run (see PermissionDecision). */
function withGrants(decision: PermissionDecision, analysed: AnalysedCall, root: string): PermissionDecision {
  if (decision.action === 'deny' || !analysed.bash) return decision;
  const grants = new Map<string, boolean>();
  for (const redirect of analysed.bash.redirects) {
    // A `cd` out of the project names the directory a writing command runs in; a redirect names a file.
    for (const path of redirect.paths) if (!isInside(path, root)) grants.set(path, redirect.op === 'cd');
  }
  if (grants.size === 0) return decision;
  return { ...decision, grants: [...grants].map(([path, directory]) => ({ path, directory })) };
}

/** Paths are absolutised and resolved through symlinks again, whatever the tool already did. */
function resolveSubject(subject: PermissionSubject, root: string, home: string): PermissionSubject {
  if (subject.kind !== 'path') return subject;
  return { kind: 'path', paths: subject.paths.map((p) => realPath(absolutePath(p, root, home))) };
}
