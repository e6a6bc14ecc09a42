import { WRITER_TOOLS } from '../tool/names.js';
import EXPLORE_PROMPT from './explore.txt';
import GENERAL_PROMPT from './general.txt';
import REVIEW_PROMPT from './review.txt';
import SECURITY_REVIEW_PROMPT from './security-review.txt';
import { DEFAULT_MAX_TURNS, DEFAULT_TIMEOUT_SECS, type Profile } from './types.js';

const REVIEW_OUTPUT_CAP = 2048;

function builtin(
  fields: Pick<Profile, 'name' | 'description' | 'prompt' | 'tier' | 'readOnly'> & Partial<Profile>,
): Profile {
  return {
    source: 'builtin',
    denyTools: fields.readOnly ? [...WRITER_TOOLS] : [],
    maxTurns: DEFAULT_MAX_TURNS,
    timeoutSecs: DEFAULT_TIMEOUT_SECS,
    subagentDeny: [],
    invocation: 'manual',
    skills: [],
    team: {},
    ...fields,
  };
}

/** The profiles shipped with cadre (SPEC 3.4); any file or config entry of the same name overrides one. */
export function builtinProfiles(): Profile[] {
  return [
    builtin({
      name: 'explore',
      description: 'Read-only researcher: searches and reads the repo, reports findings with file anchors',
      prompt: EXPLORE_PROMPT.trim(),
      tier: 'readonly',
      readOnly: true,
    }),
    builtin({
      name: 'general',
      description: 'General-purpose subagent that can read, edit files and run commands',
      prompt: GENERAL_PROMPT.trim(),
      tier: 'readwrite',
      readOnly: false,
    }),
    builtin({
      name: 'review',
      description: 'Read-only code review: actionable findings ordered by severity',
      prompt: REVIEW_PROMPT.trim(),
      tier: 'readonly',
      readOnly: true,
      maxOutputTokens: REVIEW_OUTPUT_CAP,
      parentFacts: true,
    }),
    builtin({
      name: 'security-review',
      description: 'Read-only security review: exploitable findings ordered by severity',
      prompt: SECURITY_REVIEW_PROMPT.trim(),
      tier: 'readonly',
      readOnly: true,
      maxOutputTokens: REVIEW_OUTPUT_CAP,
      parentFacts: true,
    }),
  ];
}
