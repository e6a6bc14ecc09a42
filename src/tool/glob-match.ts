import path from 'node:path';
import picomatch from 'picomatch';

/**
 * A glob without a slash matches the file name at any depth (like gitignore and `find -name`);
 * one with a slash matches the path relative to the search directory.
 */
export function pathMatcher(glob: string): (relativePath: string) => boolean {
  const matchBasename = !glob.includes('/');
  const isMatch = picomatch(glob, { dot: true });
  return (relativePath) => isMatch(matchBasename ? path.posix.basename(relativePath) : relativePath);
}
