import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import { BUILTIN_TOOL_NAMES, PATH_TOOLS } from '../tool/names.js';
import type { PermissionSubject, SafetyClass } from '../tool/tool.js';
import type { BashAnalysis } from './bash-analysis.js';
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
import { ruleMatches, toolMatches } from './match.js';
import { parseOperatorProfile } from './operator.js';
import { absolutePath, isInside, realPath } from './paths.js';
import { parseRule, parseRuleBlock, parseRules, type Rule } from './rules.js';
import type { PermissionCall, PermissionDecision, PermissionGate } from './types.js';

let bashAnalysis: Promise<typeof import('./bash-analysis.js')> | undefined;

/**
 * The bash analyser and its command tables (about 90 KB) load with the first bash call, or while a
 * session's first model call is in flight, not with cadre (issue 17).
 */
export function loadBashAnalysis(): Promise<typeof import('./bash-analysis.js')> {
  bashAnalysis ??= import('./bash-analysis.js');
  return bashAnalysis;
}

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
  /** `global` for the user's own files, `project` for files the repository wrote (see PolicyLayer.scope). */
  scope?: 'global' | 'project';
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
  /**
   * The project is trusted (`cadre trust`, `--trust-project`). Until it is, a project allow rule never
   * reaches outside the project root: a path rule pointing outside is ignored with a warning, every other
   * project allow matches inside the project only (SPEC 6.4, issue 15). Default: untrusted.
   */
  projectTrusted?: boolean;
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
  /** What composing found worth telling the user once: ignored project rules, capped global rules. */
  readonly warnings: string[];
  deniedAddress(address: string): string | undefined;
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
  const warnings: string[] = [];
  const scoped = (source: RuleBlockSource, rules: Rule[]) =>
    source.scope === 'project' && !options.projectTrusted
      ? untrustedRules(rules, root, home, warnings)
      : rules;
  for (const config of options.config ?? []) {
    layers.push({
      name: 'config',
      label: `config ${config.file}`,
      rules: scoped(config, parseRuleBlock(config.block, config.file, config.text).rules),
      scope: config.scope,
    });
  }
  if (options.profile) {
    const { name, file, text, block } = options.profile;
    layers.push({
      name: 'profile',
      label: `profile ${name}`,
      rules: scoped(options.profile, parseRuleBlock(block, file, text).rules),
      scope: options.profile.scope,
    });
  }
  warnings.push(...liftAttempts(layers));
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
      const { analyzeBash } = await loadBashAnalysis();
      const bash: BashAnalysis = await analyzeBash(call.subject.command, root, home);
      return { call, bash };
    }
    const subject = resolveSubject(call.subject, root, home);
    return { call: { ...call, subject: call.safety === 'read' ? subject : withHardLinks(subject) } };
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
    deniedAddress(address: string): string | undefined {
      const url = `http://${address.includes(':') ? `[${address}]` : address}/`;
      const subject: PermissionSubject = { kind: 'url', url };
      // Any deny rule that names the address: the host the model wrote was allowed, the address was not.
      const deny = [...policy.layers.flatMap((l) => l.rules), ...ceiling.denies].find(
        (r) => r.action === 'deny' && r.pattern !== undefined && ruleMatches(r, 'webfetch', subject, policy),
      );
      return deny ? `${address} is denied by ${deny.text} (${deny.source})` : undefined;
    },
    approve(rule: string): void {
      session.rules.push(...parseRules(rule, 'session approval', 'allow'));
    },
    narrowFor(child) {
      return createPermissionGate({ ...child, ceiling });
    },
    decideAnalysed,
    analyze,
    sessionRules: () => [...session.rules],
    warnings,
  };
}

/**
 * An untrusted project's allow rules stay inside the project: a path rule that points outside is dropped
 * (with a warning), every other allow rule matches paths inside the project only.
 */
function untrustedRules(rules: Rule[], root: string, home: string, warnings: string[]): Rule[] {
  const kept: Rule[] = [];
  for (const rule of rules) {
    if (rule.action !== 'allow') {
      kept.push(rule);
      continue;
    }
    if (rule.pattern !== undefined && PATH_TOOLS.has(rule.tool) && reachesOutside(rule.pattern, root, home)) {
      warnings.push(
        `${rule.source}: project allow rule ${rule.text} points outside the project and is ignored until the project is trusted (cadre trust)`,
      );
      continue;
    }
    kept.push({ ...rule, insideOnly: true });
  }
  return kept;
}

function reachesOutside(pattern: string, root: string, home: string): boolean {
  if (pattern.startsWith('/') || pattern.startsWith('~')) {
    const literal = pattern.replace(/[*?[{].*$/, '');
    return !isInside(absolutePath(literal || '/', root, home).replace(/\/+$/, '') || '/', root);
  }
  return pattern.split('/').includes('..');
}

/**
 * Project allow rules that a global deny or ask rule overrides (SPEC 6.4 ceiling), told once: the global
 * rule holds, and the user should know the repository asked for more.
 */
function liftAttempts(layers: PolicyLayer[]): string[] {
  const global = layers
    .filter((l) => l.scope === 'global')
    .flatMap((l) => l.rules.filter((r) => r.action !== 'allow'));
  const found = new Set<string>();
  for (const layer of layers) {
    if (layer.scope !== 'project') continue;
    for (const rule of layer.rules) {
      if (rule.action !== 'allow') continue;
      const lifted = global.find((g) => overlaps(rule, g));
      if (lifted)
        found.add(
          `${rule.source}: ${layer.label} allows ${rule.text}, but your global rule ${lifted.action} ${lifted.text} (${lifted.source}) is a ceiling over project rules: the global rule holds`,
        );
    }
  }
  return [...found];
}

function overlaps(project: Rule, global: Rule): boolean {
  if (!toolMatches(project.tool, global.tool) && !toolMatches(global.tool, project.tool)) return false;
  if (project.pattern === undefined || global.pattern === undefined || project.pattern === '*') return true;
  const first = (pattern: string) => pattern.replace(/:\*$/, ' *').split(' ')[0];
  return (
    project.pattern === global.pattern ||
    (project.tool === 'bash' && first(project.pattern) === first(global.pattern))
  );
}

/** The outside paths a bash call writes, carried with a decision that lets it run (see PermissionDecision). */
function withGrants(decision: PermissionDecision, analysed: AnalysedCall, root: string): PermissionDecision {
  if (decision.action === 'deny' || !analysed.bash) return decision;
  const grants = new Map<string, boolean>();
  for (const redirect of analysed.bash.redirects) {
    // Reads are never granted writable; a path known only at run time is not a path to bind.
    if (redirect.kind !== 'write') continue;
    // A `cd` out of the project names the directory a writing command runs in; a redirect names a file.
    for (const path of redirect.paths)
      if (isAbsolute(path) && !isInside(path, root)) grants.set(path, redirect.op === 'cd');
  }
  if (grants.size === 0) return decision;
  return { ...decision, grants: [...grants].map(([path, directory]) => ({ path, directory })) };
}

/**
 * A file with more than one hard link may have its other names outside the project: writing it changes
 * them too, so a write or edit of it is judged as outside the project (reads are not: package managers
 * hard-link into node_modules).
 */
function withHardLinks(subject: PermissionSubject): PermissionSubject {
  if (subject.kind !== 'path') return subject;
  const linked = subject.paths.filter((path) => {
    try {
      const stats = lstatSync(path);
      return stats.isFile() && stats.nlink > 1;
    } catch {
      return false;
    }
  });
  return linked.length > 0 ? { ...subject, linked } : subject;
}

/** Paths are absolutised and resolved through symlinks again, whatever the tool already did. */
function resolveSubject(subject: PermissionSubject, root: string, home: string): PermissionSubject {
  if (subject.kind !== 'path') return subject;
  return { kind: 'path', paths: subject.paths.map((p) => realPath(absolutePath(p, root, home))) };
}
