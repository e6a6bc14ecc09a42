import { readdirSync, rmdirSync, rmSync } from 'node:fs';
import { editTarget } from '../../../profile/manage/editable.js';
import { EditRefused } from '../../../profile/manage/inputs.js';
import { openWorkspace } from '../../bootstrap.js';
import { namedProfile, note, openProject, readProfileFile } from './context.js';

/** `cadre subagent delete <name> --yes` (SPEC 11): the editors' refusals apply; without `--yes` nothing is removed. */
export async function runDeleteCommand(
  name: string,
  options: { yes?: boolean; dir?: string; cwd?: string },
): Promise<number> {
  const workspace = openProject(options);
  const profile = namedProfile(workspace, name);
  if (profile.source === 'builtin') {
    throw new EditRefused(
      `"${name}" is a built-in profile and has no file to delete; a profile file of the same name overrides it`,
    );
  }
  const { fields } = profile.path ? readProfileFile(profile.path) : { fields: {} };
  const target = editTarget(profile, fields);
  if (target.kind === 'refused') throw new EditRefused(target.reason);
  if (target.kind !== 'file') throw new EditRefused(`"${name}" cannot be deleted`);
  if (!options.yes) {
    throw new EditRefused(`add --yes to delete ${target.path}; nothing was removed`);
  }

  rmSync(target.path);
  if (target.skillFolder) {
    // The folder goes too when the profile was all it held; anything else in it is the user's.
    const left = readdirSync(target.skillFolder);
    if (left.length === 0) rmdirSync(target.skillFolder);
    else note(`${target.skillFolder} still holds ${left.join(', ')}; left in place`);
  }
  process.stdout.write(`deleted ${name}: ${target.path}\n`);
  const next = openWorkspace(workspace.cwd, workspace.env).profiles.profiles.get(name);
  if (next)
    note(`"${name}" now resolves to the ${next.source} profile${next.path ? ` at ${next.path}` : ''}`);
  return 0;
}
