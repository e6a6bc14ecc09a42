import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPermissionGate } from '../../src/permission/gate.js';
import { realPath } from '../../src/permission/paths.js';

/**
 * Issue 15 point 4 / SPEC 5, 17: a path outside the project — after symlinks, `/proc/self/…`, `/dev/fd/…`,
 * `~` and `..` — is never approved by --yes; headless it is refused unless a rule allows it.
 */
const base = mkdtempSync(join(tmpdir(), 'cadre-outside-'));
const root = join(base, 'project');
const home = join(base, 'home');
mkdirSync(join(root, 'src'), { recursive: true });
mkdirSync(join(home, '.ssh'), { recursive: true });
writeFileSync(join(home, '.ssh', 'id_rsa'), 'secret');
writeFileSync(join(root, 'src', 'a.ts'), 'x');
symlinkSync(home, join(root, 'home-link'));
symlinkSync('/proc/self/cwd', join(root, 'cwd-link'));
symlinkSync('/etc', join(root, 'etc-link'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function decide(
  command: string,
  options: { yes?: boolean; headless?: boolean; allow?: string[] } = {},
) {
  const gate = createPermissionGate({
    root,
    home,
    safety: 'full',
    yes: options.yes ?? true,
    headless: options.headless,
    config: options.allow ? [{ file: 'config.json', block: { allow: options.allow } }] : [],
  });
  return gate.decide({ tool: 'bash', subject: { kind: 'bash', command }, safety: 'write', agent: 'main' });
}

describe('reads outside the project are outside', () => {
  it.each([
    ['cat ~/.ssh/id_rsa', 'tilde'],
    ['cat $HOME/.ssh/id_rsa', 'a parameter expansion: the path is computed at run time'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell command, not a template
    ['cat "${HOME}/.ssh/id_rsa"', 'braced expansion in quotes'],
    ['head -n1 ../../etc/passwd', 'dot-dot'],
    ['cat /etc/passwd', 'absolute'],
    ['grep -r root /etc', 'grep path operand'],
    ['grep -f /etc/passwd x', 'grep -f reads a file'],
    ['rg --ignore-file=/etc/passwd x', 'rg option value'],
    ['cat home-link/.ssh/id_rsa', 'a symlink in the project pointing out'],
    ['ls etc-link/', 'a symlinked directory'],
    ['cat cwd-link/x', 'a symlink into /proc/self'],
    ['cat /proc/self/root/etc/passwd', '/proc/self/root'],
    ['cat /proc/self/cwd/src/a.ts', '/proc/self/cwd is not the shell directory'],
    ['cat /dev/fd/3', 'an inherited descriptor'],
    ['cat /etc/*.conf', 'a glob outside'],
    ['cat ~/.ss*/id_rsa', 'a glob under home'],
    ['cd /etc && cat passwd', 'cd out then read'],
    ['cd .. && ls', 'cd .. then list'],
    ['pushd /tmp && ls', 'pushd'],
    ['git -C /etc log', 'git -C out of the project'],
    ['wc -l < /etc/passwd', 'an input redirection reads its file'],
    ['tr a b 0</etc/passwd', 'an input redirection with a descriptor'],
    ['find /etc -name x', 'find starting point'],
    ['diff ~/.bashrc src/a.ts', 'one of two operands outside'],
  ])('%s asks and --yes does not approve it (%s)', async (command) => {
    const decision = await decide(command);
    expect(decision.action, decision.reason).toBe('ask');
    expect(decision.trace.some((t) => t.layer === '--yes' && t.note.startsWith('not applied'))).toBe(true);
  });

  it.each([
    ["python3 -c \"open('../x', 'w')\"", 'an interpreter given code'],
    ["node -e \"require('fs').rmSync('/x')\"", 'node -e'],
    ['npx some-package', 'a package runner'],
    ['bash < script.sh', 'a shell reading its input'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    ['echo ${!x}', 'not understood'],
    ['GIT_PAGER=x git log', 'an executing environment variable'],
  ])('%s runs what the analyser cannot see: --yes does not approve it (%s)', async (command) => {
    const decision = await decide(command);
    expect(decision.action, decision.reason).toBe('ask');
    expect((await decide(command, { yes: false, headless: true })).action).toBe('deny');
  });

  it('a rule written for opaque code approves it', async () => {
    expect((await decide('python3 -c "print(1)"', { allow: ['bash(python3 -c *)'] })).action).toBe('allow');
  });

  it.each([
    ['cat src/a.ts'],
    ['ls'],
    ['grep -r x src'],
    ['cat ./src/../src/a.ts'],
    ['cd src && cat a.ts'],
    ['find . -name "*.ts"'],
    ['echo ~/.ssh/id_rsa'],
    ['git log -- src'],
    ['wc -l < src/a.ts'],
  ])('%s reads inside the project: --yes approves it', async (command) => {
    expect((await decide(command)).action).toBe('allow');
  });

  it('headless refuses an outside read unless a rule allows it', async () => {
    expect((await decide('cat ~/.ssh/id_rsa', { yes: false, headless: true })).action).toBe('deny');
    const allowed = await decide('cat ~/.ssh/id_rsa', {
      yes: false,
      headless: true,
      allow: ['bash(cat *)', 'read(~/.ssh/**)'],
    });
    expect(allowed.action).toBe('allow');
  });
});

describe('writes outside the project are outside', () => {
  it.each([
    ['rm -rf ../outside', 'rm operand with ..'],
    ['rm -rf ~', 'tilde'],
    ['rm -rf "$HOME"', 'a parameter expansion'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    ['rm -rf ${HOME}/x', 'braced parameter expansion'],
    ['rm -rf ../*', 'a glob outside'],
    ['echo x > ../o.txt', 'redirection'],
    ['echo x >> ~/.bashrc', 'appending redirection'],
    ['cd .. && touch x', 'cd then write'],
    ['pushd /tmp && touch x', 'pushd then write'],
    ['env -C /tmp touch x', 'env -C'],
    ['git -C /tmp commit -m x', 'git -C then a write'],
    ['tee ../o.txt < src/a.ts', 'tee'],
    ['cp -t ../ src/a.ts', 'cp -t'],
    ['ln -s src/a.ts ../l', 'ln'],
    ['curl -o /tmp/x https://example.com', 'curl -o'],
    ['wget -O/tmp/x https://example.com', 'wget -O attached'],
    ['tar -C /tmp -xf a.tar', 'tar -C'],
    ['make -C /tmp', 'make -C'],
    ['npm install --prefix=/tmp/x', 'an option value'],
    ['dd if=src/a.ts of=/tmp/x', 'dd of='],
    ['cat src/a.ts | tee /dev/../tmp/x', 'a path through /dev/..'],
    ['touch home-link/x', 'a symlink pointing out'],
    ['sort -o /tmp/x src/a.ts', 'sort -o'],
    ['xargs rm < src/a.ts ../x', 'a wrapper whose own argument is outside'],
  ])('%s asks and --yes does not approve it (%s)', async (command) => {
    const decision = await decide(command);
    expect(decision.action, decision.reason).toBe('ask');
  });

  it.each([
    ['rm -rf build'],
    ['touch src/b.ts'],
    ['echo x > out.txt'],
    ['git commit -m "fix a/b"'],
    ['npm test'],
  ])('%s stays inside: --yes approves it', async (command) => {
    expect((await decide(command)).action).toBe('allow');
  });
});

describe('realPath', () => {
  it.each([
    ['/proc/self/cwd', '/proc/self/cwd'],
    ['/proc/self/root/etc', '/proc/self/root/etc'],
    ['/dev/fd/3', '/dev/fd/3'],
  ])('keeps the process path %s as written', (path, expected) => {
    expect(realPath(path)).toBe(expected);
  });

  it("follows a project symlink into /proc to the process path, not to cadre's own directory", () => {
    expect(realPath(join(root, 'cwd-link', 'x'))).toBe('/proc/self/cwd/x');
  });
});

describe('sandbox grants', () => {
  it('grants no write to a path the command only reads, nor to a path known only at run time', async () => {
    const read = await decide('cat /etc/hostname', { allow: ['bash(cat *)', 'read(/etc/**)'] });
    expect(read.action).toBe('allow');
    expect(read.grants).toBeUndefined();
    const computed = await decide('touch "$HOME/x"', { allow: ['bash', 'write'] });
    expect(computed.action).toBe('allow');
    expect(computed.grants).toBeUndefined();
  });
});
