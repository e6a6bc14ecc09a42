import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/load.js';
import { bwrapSpawn, type HostFs } from '../../src/sandbox/bwrap.js';
import { readOnlyHint } from '../../src/sandbox/hint.js';
import { buildSandboxPolicy, type SandboxSettings } from '../../src/sandbox/policy.js';
import type { ProbeResult } from '../../src/sandbox/probe.js';
import { type BackendProbes, chooseBackend, type ShellSandbox } from '../../src/sandbox/sandbox.js';
import { seatbeltSpawn } from '../../src/sandbox/seatbelt.js';

const settings: SandboxSettings = {
  home: '/home/u',
  configDir: '/home/u/.config/cadre',
  readOnly: false,
  network: true,
  pidNamespace: true,
  hide: [],
  envAllow: [],
  keyEnvNames: [],
};
const ROOT = '/p';

/** A host where only these paths exist; `/home/u/.ssh` is a directory, the rest files unless they end in /. */
function fakeFs(entries: Record<string, 'dir' | 'file'>, links: Record<string, string> = {}): HostFs {
  return { kind: (path) => entries[path], real: (path) => links[path] ?? path };
}

const HOST = fakeFs({
  '/p': 'dir',
  '/p/.git/hooks': 'dir',
  '/p/.git/config': 'file',
  '/home/u/.npm': 'dir',
  '/home/u/.ssh': 'dir',
  '/home/u/.npmrc': 'file',
  '/outside/out.txt': 'file',
});

function pairs(args: string[], flag: string): string[] {
  const out: string[] = [];
  args.forEach((arg, i) => {
    if (arg === flag) out.push(args[i + 1]);
  });
  return out;
}

describe('the bwrap backend', () => {
  const policy = buildSandboxPolicy(settings, ROOT, { gitStores: ['/p/.git'] });

  it('binds / read-only, then the writable places, then read-only and hidden ones, in that order', () => {
    const { file, args } = bwrapSpawn(policy, 'echo hi', ROOT, [], HOST);
    expect(file).toBe('bwrap');
    expect(args.slice(0, 3)).toEqual(['--ro-bind', '/', '/']);
    expect(pairs(args, '--bind')).toEqual(['/p', '/home/u/.npm']);
    expect(pairs(args, '--ro-bind')).toEqual(['/', '/p/.git/hooks', '/p/.git/config']);
    expect(args.indexOf('/p/.git/hooks')).toBeGreaterThan(args.indexOf('/p'));
    expect(args.join(' ')).toContain('--tmpfs /home/u/.ssh --remount-ro /home/u/.ssh');
    expect(args.join(' ')).toContain('--dev-bind /dev/null /home/u/.npmrc');
    expect(args.slice(-6)).toEqual(['--chdir', ROOT, '--', 'bash', '-c', 'echo hi']);
  });

  it("binds a writer's private ref copy over the shared refs, inside its read-only git store", () => {
    const host = fakeFs({
      '/wt': 'dir',
      '/r/.git': 'dir',
      '/r/.git/objects': 'dir',
      '/r/.git/refs/heads': 'dir',
      '/r/.git/worktrees/wt': 'dir',
      '/r/.git/worktrees/wt/heads': 'dir',
    });
    const writer = buildSandboxPolicy(settings, '/wt', {
      writable: ['/r/.git/objects', '/r/.git/worktrees/wt'],
      readOnly: ['/r/.git'],
      mounts: [
        { source: '/r/.git/worktrees/wt/heads', target: '/r/.git/refs/heads' },
        { source: '/missing', target: '/r/.git/logs/refs/heads' },
      ],
    });
    const args = bwrapSpawn(writer, 'true', '/wt', [], host).args.join(' ');
    expect(args).toContain(
      '--ro-bind /r/.git /r/.git --bind /wt /wt --bind /r/.git/objects /r/.git/objects --bind /r/.git/worktrees/wt /r/.git/worktrees/wt --bind /r/.git/worktrees/wt/heads /r/.git/refs/heads',
    );
    expect(args).not.toContain('/r/.git/logs');
  });

  it('gives a private /tmp, a new PID namespace and dies with cadre', () => {
    const { args } = bwrapSpawn(policy, 'true', ROOT, [], HOST);
    expect(args.join(' ')).toContain('--unshare-pid --proc /proc --tmpfs /tmp');
    expect(args).toContain('--die-with-parent');
    expect(args).not.toContain('--unshare-net');
  });

  it('leaves the network out when the policy has none', () => {
    const offline = buildSandboxPolicy({ ...settings, network: false }, ROOT);
    expect(bwrapSpawn(offline, 'true', ROOT, [], HOST).args).toContain('--unshare-net');
  });

  it('skips paths that do not exist and mounts real paths', () => {
    const host = fakeFs({ '/p': 'dir', '/data/real': 'dir' }, { '/home/u/.npm': '/data/real' });
    const linked = fakeFs(
      { '/p': 'dir', '/home/u/.npm': 'dir', '/data/real': 'dir' },
      { '/home/u/.npm': '/data/real' },
    );
    expect(pairs(bwrapSpawn(policy, 'true', ROOT, [], host).args, '--bind')).toEqual(['/p']);
    expect(pairs(bwrapSpawn(policy, 'true', ROOT, [], linked).args, '--bind')).toEqual(['/p', '/data/real']);
  });

  it("binds a call's granted outside paths writable", () => {
    const grants = [{ path: '/outside/out.txt', directory: false }];
    expect(pairs(bwrapSpawn(policy, 'true', ROOT, grants, HOST).args, '--bind')).toContain(
      '/outside/out.txt',
    );
  });
});

describe('the sandbox-exec backend (macOS)', () => {
  it('denies writes except the writable places and reads of the hidden ones', () => {
    const policy = buildSandboxPolicy({ ...settings, network: false }, ROOT, { gitStores: ['/p/.git'] });
    const { file, args } = seatbeltSpawn(policy, 'make', [], HOST);
    expect(file).toBe('sandbox-exec');
    const profile = args[1];
    expect(profile).toContain('(deny file-write*)');
    expect(profile).toContain('(subpath "/p")');
    expect(profile).toContain('(deny file-write* (subpath "/p/.git/hooks") (subpath "/p/.git/config"))');
    expect(profile).toContain(
      '(deny file-read* file-write* (subpath "/home/u/.ssh") (subpath "/home/u/.npmrc"))',
    );
    expect(profile).toContain('(deny network*)');
    expect(args.slice(2)).toEqual(['bash', '-c', 'make']);
  });
});

describe('choosing the backend', () => {
  const works = (): ProbeResult => ({ ok: true });
  const broken = (): ProbeResult => ({ ok: false, error: 'bwrap: setting up uid map: Permission denied' });
  const probes = (platform: NodeJS.Platform, bwrap = works, sandboxExec = works): BackendProbes => ({
    platform,
    bwrap,
    sandboxExec,
  });

  it.each([
    ['auto', probes('linux'), 'bwrap', undefined],
    ['bwrap', probes('linux'), 'bwrap', undefined],
    [
      'auto',
      probes('linux', broken),
      'none',
      'no working bubblewrap: bwrap: setting up uid map: Permission denied',
    ],
    ['none', probes('linux'), 'none', 'the configuration sets "sandbox": "none"'],
    ['auto', probes('darwin'), 'sandbox-exec', undefined],
    ['auto', probes('win32'), 'none', 'no sandbox backend for platform win32'],
  ] as const)('%s on %o uses %s', (mode, p, backend, reason) => {
    expect(chooseBackend(mode, p)).toEqual(reason ? { backend, reason } : { backend });
  });

  it('refuses to run when the config requires bwrap and it does not work, quoting bwrap', () => {
    expect(() => chooseBackend('bwrap', probes('linux', broken))).toThrow(ConfigError);
    expect(() => chooseBackend('bwrap', probes('linux', broken))).toThrow(
      '"sandbox": "bwrap" is configured but bubblewrap does not work here: bwrap: setting up uid map: Permission denied',
    );
    expect(() => chooseBackend('bwrap', probes('darwin'))).toThrow(/Linux-only/);
  });
});

describe('the read-only hint', () => {
  const sandbox: ShellSandbox = {
    backend: 'bwrap',
    settings,
    policy: buildSandboxPolicy(settings, ROOT, { gitStores: ['/p/.git'] }),
  };
  const expected = (path: string) => `sandbox: ${path} is not writable (writable: /p, /home/u/.npm, /tmp)`;

  it.each([
    ["touch: cannot touch '/etc/x': Read-only file system", '/etc/x'],
    ['mkdir: cannot create directory ‘/usr/local/y’: Read-only file system', '/usr/local/y'],
    ['bash: line 1: /home/u/.bashrc: Read-only file system', '/home/u/.bashrc'],
    ["Error: EROFS: read-only file system, open '/opt/out.json'", '/opt/out.json'],
    ["OSError: [Errno 30] Read-only file system: '/var/lib/z'", '/var/lib/z'],
    ['error: could not lock config file .git/config: Read-only file system', '/p/.git/config'],
    [
      "cp: cannot create regular file '.git/hooks/pre-commit': Read-only file system",
      '/p/.git/hooks/pre-commit',
    ],
  ])('names the path from %j', (line, path) => {
    expect(readOnlyHint(sandbox, `some output\n${line}\n`, ROOT, HOST)).toBe(expected(path));
  });

  it.each([
    ['a failure with no read-only error', 'make: *** [all] Error 2'],
    [
      'a read-only error on a writable path (not the sandbox’s doing)',
      "touch: cannot touch '/p/mnt/x': Read-only file system",
    ],
    ['a read-only error in the private /tmp', "touch: cannot touch '/tmp/x': Read-only file system"],
  ])('says nothing for %s', (_label, output) => {
    expect(readOnlyHint(sandbox, output, ROOT, HOST)).toBeUndefined();
  });

  it('says nothing without a confining sandbox', () => {
    const none: ShellSandbox = { ...sandbox, backend: 'none' };
    expect(
      readOnlyHint(none, "touch: cannot touch '/etc/x': Read-only file system", ROOT, HOST),
    ).toBeUndefined();
  });
});
