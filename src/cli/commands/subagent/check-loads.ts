import { buildProfile } from '../../../profile/build.js';
import { parseFrontmatter } from '../../../profile/frontmatter.js';
import { EditRefused } from '../../../profile/manage/inputs.js';
import type { Profile, ProfileSource } from '../../../profile/types.js';

/**
 * The text about to be written must load as the same profile: what the editors write is checked by the
 * loader itself, so a file they produce is never skipped at the next start.
 */
export function checkLoads(
  text: string,
  where: { name: string; path: string; source: ProfileSource },
): Profile {
  const parsed = parseFrontmatter(text);
  const built = parsed.ok
    ? buildProfile({
        name: where.name,
        source: where.source,
        path: where.path,
        fields: parsed.value.fields,
        body: parsed.value.body,
        citation: { file: where.path, text },
        extraKeys: ['applies_to'],
      })
    : parsed;
  if (!built.ok)
    throw new EditRefused(`the result would not load as a profile (${built.reason}); nothing was changed`);
  return built.profile;
}
