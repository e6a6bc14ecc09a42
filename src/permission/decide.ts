import { type PermissionSubject, SAFETY_ORDER, type SafetyClass } from '../tool/tool.js';
import type { BashAnalysis } from './bash-analysis.js';
import { type MatchContext, ruleMatches, toolMatches } from './match.js';
import { isInside } from './paths.js';
import { candidateRules, type IndexedRule } from './rule-index.js';
import type { Rule } from './rules.js';
import type { PermissionAction, PermissionCall, PermissionDecision, TraceEntry } from './types.js';

export type SafetyFloor = 'read-only' | 'non-destructive' | 'full';

/** The highest class each floor admits (SPEC 6.3). */
export const FLOOR_ADMITS: Record<SafetyFloor, SafetyClass> = {
  'read-only': 'read',
  'non-destructive': 'write',
  full: 'destructive',
};

/** A terminal tool deny from a prompt or profile's `deny_tools`, or the complement of its `allow_tools`. */
export interface HardDeny {
  /** Tool name, `*` wildcards allowed. */
  tool: string;
  /** Who imposed it, e.g. `profile reviewer` or `prompt careful`. */
  owner: string;
  list: 'deny_tools' | 'allow_tools';
  source?: string;
}

/** One ordered rule layer of the composition (SPEC 6.4 steps 3–7). */
export interface PolicyLayer {
  /** built-in | config | profile | operator | session */
  name: string;
  /** Human label, e.g. `profile reviewer` or `config /home/u/.config/cadre/config.json`. */
  label: string;
  rules: Rule[];
  /**
   * `global`: the user's own config, whose deny and ask rules are a ceiling over `project` layers (files
   * a cloned repository wrote: its config, profiles, agents, skills, prompts). Operator and session layers
   * have no scope and are not capped (SPEC 6.4, issue 15).
   */
  scope?: 'global' | 'project';
}

/** What a subagent inherits from its parent (SPEC 6.7): the floor and the operator's deny rules. */
export interface PermissionCeiling {
  floor: SafetyFloor;
  denies: Rule[];
}

export interface Policy extends MatchContext {
  floor: SafetyFloor;
  hardDenies: HardDeny[];
  layers: PolicyLayer[];
  ceiling: PermissionCeiling;
  yes: boolean;
  /** No user can answer an ask: it becomes a deny (SPEC 6.6). */
  headless: boolean;
}

/** A call ready for the pure decision: paths absolute and real, bash already analysed. */
export interface AnalysedCall {
  call: PermissionCall;
  bash?: BashAnalysis;
}

/** One thing rules are checked against: a whole call, a part of a bash command, or a redirect target. */
interface Check {
  tool: string;
  subject: PermissionSubject;
  /** Shown in reasons: the bash part, the path, … */
  label: string;
  /** Derived forms can be denied or asked by rules but never allow anything (see BashCommand.derived). */
  derived: boolean;
  /** A command the analyser could not follow: only a bare or `*` allow rule allows it. */
  opaque: boolean;
  /** Runs code (or text) the analyser cannot see: no default and no --yes approves it, only a rule. */
  unprovable?: string;
  safety: SafetyClass;
}

interface Verdict {
  check: Check;
  action: PermissionAction | 'neutral';
  layer: string;
  /** The layer's human label, e.g. `profile reviewer`. */
  label: string;
  layerRef?: PolicyLayer;
  rule?: Rule;
  /** An ask for a path outside the project that no rule allows: `--yes` does not approve it. */
  outside: boolean;
  note: string;
  /** The project rule that decided first, when a global rule capped it. */
  capped?: Rule;
}

const SEVERITY: Record<PermissionAction | 'neutral', number> = { neutral: -1, allow: 0, ask: 1, deny: 2 };

export function stricterFloor(a: SafetyFloor, b: SafetyFloor): SafetyFloor {
  return SAFETY_ORDER.indexOf(FLOOR_ADMITS[a]) <= SAFETY_ORDER.indexOf(FLOOR_ADMITS[b]) ? a : b;
}

export function floorAdmits(floor: SafetyFloor, safety: SafetyClass): boolean {
  return SAFETY_ORDER.indexOf(safety) <= SAFETY_ORDER.indexOf(FLOOR_ADMITS[floor]);
}

/** The class a call is judged by: bash by its analysis, every other tool by its declaration. */
export function callSafety(analysed: AnalysedCall): SafetyClass {
  return analysed.bash ? analysed.bash.safety : analysed.call.safety;
}

/** The pure core (SPEC 6.4): layers and an analysed call in, a decision with its full trace out. */
export function decidePermission(policy: Policy, analysed: AnalysedCall): PermissionDecision {
  const { call } = analysed;
  const safety = callSafety(analysed);
  const trace: TraceEntry[] = [];
  const classWhy = analysed.bash ? ` (${analysed.bash.why})` : '';

  if (!floorAdmits(policy.floor, safety)) {
    const reason = `denied by the safety floor (--safety ${policy.floor}): this ${call.tool} call is of class ${safety}${classWhy}`;
    trace.push({ layer: 'floor', source: '--safety', action: 'deny', note: reason });
    return { action: 'deny', layer: 'floor', source: '--safety', safety, reason, trace };
  }
  trace.push({
    layer: 'floor',
    source: '--safety',
    note: `${policy.floor} admits this ${safety} call${classWhy}`,
  });

  const hard = policy.hardDenies.find((deny) => toolMatches(deny.tool, call.tool));
  if (hard) {
    const rule = `${hard.list}: ${hard.tool}`;
    const reason =
      hard.list === 'deny_tools'
        ? `denied by ${hard.owner} (deny_tools: ${hard.tool})`
        : `denied by ${hard.owner} (allow_tools does not list ${call.tool})`;
    const source = hard.source ?? hard.owner;
    trace.push({ layer: 'hard-deny', rule, source, action: 'deny', note: reason });
    return { action: 'deny', layer: 'hard-deny', rule, source, safety, reason, trace };
  }
  trace.push({ layer: 'hard-deny', note: `no deny_tools/allow_tools entry removes ${call.tool}` });

  const checks = checksFor(analysed);
  const verdicts = checks.map((check) => capByGlobal(policy, judge(policy, check)));
  for (const layer of policy.layers) trace.push(layerTrace(layer, verdicts));
  for (const verdict of verdicts) {
    if (verdict.capped)
      trace.push({
        layer: 'ceiling',
        rule: verdict.rule?.text,
        source: verdict.rule?.source,
        action: asAction(verdict.action),
        note: verdict.note,
      });
  }
  const decisive = mostSevere(verdicts);
  if (decisive.layer === 'default') {
    trace.push({ layer: 'default', action: asAction(decisive.action), note: decisive.note });
  }

  const ceilingHit = findCeilingDeny(policy, checks);
  if (ceilingHit) {
    const { rule, check } = ceilingHit;
    const reason = `denied by the inherited ceiling: ${rule.text} (${rule.source}) matches "${check.label}"`;
    trace.push({ layer: 'ceiling', rule: rule.text, source: rule.source, action: 'deny', note: reason });
    return { action: 'deny', layer: 'ceiling', rule: rule.text, source: rule.source, safety, reason, trace };
  }
  if (policy.ceiling.denies.length > 0)
    trace.push({ layer: 'ceiling', note: 'no inherited deny rule matches' });

  const action = asAction(decisive.action);
  const decision: PermissionDecision = {
    action,
    layer: decisive.layer,
    rule: decisive.rule?.text,
    source: decisive.rule?.source ?? (decisive.layer === 'default' ? 'built-in' : undefined),
    safety,
    reason: reasonFor(decisive),
    trace,
  };
  // --yes never approves a path outside the project (or code it cannot see); a message must not suggest it.
  const unapprovable = decisive.outside ? decisive : verdicts.find((v) => v.action === 'ask' && v.outside);
  const outside = unapprovable !== undefined;
  if (action === 'ask' && policy.yes) {
    if (unapprovable) {
      trace.push({ layer: '--yes', note: `not applied: ${unapprovable.note}` });
    } else {
      const reason = `allowed by --yes (would ask: ${decision.reason})`;
      trace.push({ layer: '--yes', source: '--yes', action: 'allow', note: reason });
      return { ...decision, action: 'allow', layer: '--yes', source: '--yes', reason, trace };
    }
  }
  if (decision.action === 'ask' && policy.headless) {
    const rulePart = decision.rule ? `rule ${decision.rule} (${decision.source})` : 'no allow rule';
    const reason =
      `denied: no user is present to approve this call (ask from layer ${decision.layer}, ${rulePart}: ` +
      `${decision.reason}). ${outside ? 'An allow rule for the path is needed (--yes does not approve paths outside the project).' : 'An allow rule or --yes is needed.'}`;
    trace.push({ layer: 'headless', action: 'deny', note: reason });
    return { ...decision, action: 'deny', layer: 'headless', reason, trace };
  }
  return action === 'ask' ? { ...decision, yesApprovable: !outside } : decision;
}

function asAction(action: PermissionAction | 'neutral'): PermissionAction {
  return action === 'neutral' ? 'allow' : action;
}

function checksFor(analysed: AnalysedCall): Check[] {
  const { call, bash } = analysed;
  const base = { derived: false, opaque: false, safety: call.safety };
  if (bash) {
    const checks: Check[] = bash.commands.map((part) => ({
      tool: call.tool,
      subject: { kind: 'bash', command: part.text },
      label: part.text,
      derived: part.derived,
      opaque: false,
      unprovable: part.opaque,
      safety: part.safety,
    }));
    if (bash.problems.length > 0 || bash.opaque || checks.every((c) => c.derived)) {
      checks.push({
        ...base,
        subject: { kind: 'bash', command: bash.command },
        tool: call.tool,
        label: bash.command,
        opaque: bash.problems.length > 0,
        unprovable: bash.opaque,
        safety: bash.safety,
      });
    }
    for (const redirect of bash.redirects) {
      for (const path of redirect.paths) {
        checks.push({
          ...base,
          tool: redirect.kind,
          subject: { kind: 'path', paths: [path] },
          label: path,
          safety: redirect.kind,
        });
      }
    }
    return checks;
  }
  if (call.subject.kind === 'path' && (call.subject.paths.length > 1 || call.subject.linked)) {
    const linked = call.subject.linked ?? [];
    return call.subject.paths.map((path) => ({
      ...base,
      tool: call.tool,
      subject: linked.includes(path)
        ? { kind: 'path', paths: [path], linked: [path] }
        : { kind: 'path', paths: [path] },
      label: path,
    }));
  }
  return [{ ...base, tool: call.tool, subject: call.subject, label: subjectLabel(call.subject, call.tool) }];
}

function subjectLabel(subject: PermissionSubject, tool: string): string {
  switch (subject.kind) {
    case 'bash':
      return subject.command;
    case 'path':
      return subject.paths[0] ?? tool;
    case 'url':
      return subject.url;
    case 'name':
      return subject.value;
    case 'none':
      return tool;
  }
}

function rulePermits(rule: Rule, check: Check): boolean {
  if (!check.opaque || rule.action !== 'allow') return true;
  return rule.pattern === undefined || rule.pattern === '*';
}

/** Last matching rule over the composed list wins; no match falls to the tool's default. */
function judge(policy: Policy, check: Check): Verdict {
  const candidates = candidateRules(policy.layers, check.tool, check.subject, policy);
  let last: IndexedRule | undefined;
  for (let i = candidates.length - 1; i >= 0 && !last; i--) {
    const { rule } = candidates[i];
    if (ruleMatches(rule, check.tool, check.subject, policy) && rulePermits(rule, check))
      last = candidates[i];
  }
  if (last) {
    const action = check.derived && last.rule.action === 'allow' ? 'neutral' : last.rule.action;
    const note = `${last.rule.text} (${last.rule.source}) matches "${check.label}"`;
    const { layer, rule } = last;
    return {
      check,
      action,
      layer: layer.name,
      layerRef: layer,
      label: layer.label,
      rule,
      outside: false,
      note,
    };
  }
  if (check.derived)
    return { check, action: 'neutral', layer: 'default', label: 'default', outside: false, note: '' };
  return defaultVerdict(policy, check);
}

/**
 * The user's global deny and ask rules are a ceiling over the project layers (SPEC 6.4): a verdict decided
 * by a project rule is raised to what the global config alone says, when that is stricter.
 */
function capByGlobal(policy: Policy, verdict: Verdict): Verdict {
  if (verdict.layerRef?.scope !== 'project') return verdict;
  const { check } = verdict;
  const candidates = candidateRules(policy.layers, check.tool, check.subject, policy);
  for (let i = candidates.length - 1; i >= 0; i--) {
    const { rule, layer } = candidates[i];
    if (layer.scope !== 'global' || !ruleMatches(rule, check.tool, check.subject, policy)) continue;
    if (rule.action === 'allow' || SEVERITY[rule.action] <= SEVERITY[verdict.action]) return verdict;
    const note =
      `${verdict.rule?.text} (${verdict.rule?.source}, ${verdict.label}) is capped by the global ` +
      `rule ${rule.text} (${rule.source}) for "${check.label}"`;
    return {
      ...verdict,
      action: rule.action,
      layer: 'ceiling',
      label: layer.label,
      layerRef: layer,
      rule,
      note,
      capped: verdict.rule,
    };
  }
  return verdict;
}

/** SPEC 6.1: reads inside the project are allowed; everything else asks; outside paths need a rule. */
function defaultVerdict(policy: Policy, check: Check): Verdict {
  if (check.subject.kind === 'path') {
    const linked = check.subject.linked ?? [];
    if (linked.length > 0) {
      const note = `${linked[0]} has more than one hard link (another name may be outside the project) and no rule allows writing it`;
      return { check, action: 'ask', layer: 'default', label: 'default', outside: true, note };
    }
    const outsidePaths = check.subject.paths.filter((p) => !isInside(p, policy.root));
    if (outsidePaths.length > 0) {
      const note = `${outsidePaths[0]} is outside the project and no rule allows it`;
      return { check, action: 'ask', layer: 'default', label: 'default', outside: true, note };
    }
    if (check.safety === 'read') {
      return {
        check,
        action: 'allow',
        layer: 'default',
        label: 'default',
        outside: false,
        note: `reads inside the project are allowed`,
      };
    }
  }
  if (check.unprovable) {
    const note = `"${check.label}" runs what the analyser cannot see (${check.unprovable}): only a rule written for it approves it, --yes does not`;
    return { check, action: 'ask', layer: 'default', label: 'default', outside: true, note };
  }
  const what = check.tool === 'bash' ? `"${check.label}"` : check.tool;
  const note = check.opaque
    ? `"${check.label}" is not fully understood and only a bare bash allow rule covers it`
    : `no rule matches ${what}; ${check.tool} calls ask by default`;
  return { check, action: 'ask', layer: 'default', label: 'default', outside: false, note };
}

function mostSevere(verdicts: Verdict[]): Verdict {
  let worst = verdicts[0];
  for (const verdict of verdicts) if (SEVERITY[verdict.action] > SEVERITY[worst.action]) worst = verdict;
  return worst;
}

function layerTrace(layer: PolicyLayer, verdicts: Verdict[]): TraceEntry {
  const hits = verdicts.filter((v) => v.layerRef === layer && !v.capped);
  if (hits.length === 0) {
    return {
      layer: layer.name,
      note: `${layer.label}: ${layer.rules.length} rule(s), none decides this call`,
    };
  }
  const worst = mostSevere(hits);
  const note = hits
    .map((v) => `${v.rule?.action} ${v.note}${v.action === 'neutral' ? ' (derived form)' : ''}`)
    .join('; ');
  return {
    layer: layer.name,
    rule: worst.rule?.text,
    source: worst.rule?.source,
    action: asAction(worst.action),
    note: `${layer.label}: ${note}`,
  };
}

function findCeilingDeny(policy: Policy, checks: Check[]): { rule: Rule; check: Check } | undefined {
  for (const check of checks) {
    const rule = policy.ceiling.denies.find((r) => ruleMatches(r, check.tool, check.subject, policy));
    if (rule) return { rule, check };
  }
  return undefined;
}

function reasonFor(verdict: Verdict): string {
  if (verdict.capped) {
    const verb = verdict.action === 'deny' ? 'denied' : 'asks';
    return `${verb} by the global rule ${verdict.rule?.text} (${verdict.rule?.source}), a ceiling over the project rule ${verdict.capped.text} (${verdict.capped.source}) for "${verdict.check.label}"`;
  }
  if (verdict.layer === 'default') {
    const prefix = verdict.action === 'allow' ? 'allowed by default' : 'asks by default';
    return `${prefix}: ${verdict.note}`;
  }
  const verb = verdict.action === 'deny' ? 'denied' : verdict.action === 'ask' ? 'asks' : 'allowed';
  return `${verb} by ${verdict.label} rule ${verdict.rule?.text} (${verdict.rule?.source}) for "${verdict.check.label}"`;
}
