import { isAbsolute, join, resolve } from 'node:path';

/** What the sandbox is allowed to do, fixed for a run (config, `--safety`, the environment). */
export interface SandboxSettings {
  home: string;
  /** cadre's own configuration directory (keys, sessions): hidden like the user's secrets. */
  configDir: string;
  /** `--safety read-only`: nothing of the project is writable and there is no network. */
  readOnly: boolean;
  network: boolean;
  pidNamespace: boolean;
  /** `sandbox_hide`: `~/x`, `/abs`, or relative to the sandbox's root. */
  hide: string[];
  /** `sandbox_env_allow`: names (or `*` globs) let through although they look secret. */
  envAllow: string[];
  /** Every provider's `api_key_env`. */
  keyEnvNames: string[];
  /** `$XDG_RUNTIME_DIR`: agent sockets (ssh, gpg, podman) live there. */
  runtimeDir?: string;
}

/** Extra places a policy rooted somewhere needs: git stores (writable, hooks and config read-only). */
export interface PolicyExtras {
  gitStores?: string[];
  writable?: string[];
  readOnly?: string[];
  mounts?: Mount[];
  /** Environment variables set for every command (an isolated writer's private git objects). */
  setEnv?: Record<string, string>;
}

/** A writable directory bound at another path, standing in for it (bwrap only; see SandboxPolicy.mounts). */
export interface Mount {
  source: string;
  target: string;
}

/** An outside path one call may write (a rule or an approval allowed it): bound writable for that call. */
export interface WriteGrant {
  path: string;
  /** A directory a writing command runs in (after `cd`); otherwise a file, created empty when missing. */
  directory: boolean;
}

export interface EnvPolicy {
  /** Exact names removed. */
  names: string[];
  /** `*` globs over names, matched case-insensitively. */
  patterns: string[];
  /** Names or globs kept although they match the above. */
  allow: string[];
}

/**
 * The sandbox of one agent's shell commands, as plain data. Paths are absolute; ones that do not exist
 * when a command starts are left out by the backend (caches in `createMissing` are made first).
 */
export interface SandboxPolicy {
  /** Where commands run; writable unless read-only. */
  root: string;
  /** Bound read-write over the otherwise read-only filesystem. */
  writable: string[];
  /** Writable caches created when missing, so the first `npm install` works. */
  createMissing: string[];
  /** Bound read-only again inside writable places (`.git/hooks`, `.git/config`). */
  readOnly: string[];
  /**
   * Private writable copies bound over shared directories (an isolated writer's `refs/heads`). Only
   * bwrap can bind one path at another; other backends are never given mounts.
   */
  mounts: Mount[];
  /** Set for every command, over the (scrubbed) environment. */
  setEnv?: Record<string, string>;
  /** Emptied: a directory becomes an empty tmpfs, a file an empty file. */
  hidden: string[];
  privateTmp: boolean;
  network: boolean;
  pidNamespace: boolean;
  env: EnvPolicy;
}

export const DEFAULT_HIDDEN_DIRS = [
  '~/.ssh',
  '~/.aws',
  '~/.gnupg',
  '~/.config/gcloud',
  '~/.config/gh',
  '~/.kube',
  '~/.docker',
  '~/.azure',
];

export const DEFAULT_HIDDEN_FILES = [
  '~/.npmrc',
  '~/.netrc',
  '~/.git-credentials',
  '~/.config/git/credentials',
  '~/.pypirc',
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
  // A socket on a read-only mount can still be connected to: the Docker daemon is root on the host.
  '/var/run/docker.sock',
  '/run/docker.sock',
];

/** Package-manager caches: writable so installs, builds and tests work unchanged. */
export const CACHE_DIRS = [
  '~/.npm',
  '~/.cache',
  '~/.cargo',
  '~/.rustup',
  '~/go',
  '~/.yarn',
  '~/.pnpm-store',
  '~/.local/share/pnpm',
  '~/.bun',
  '~/.deno',
  '~/.gradle',
  '~/.m2',
  '~/.nuget',
  '~/.gem',
];

/** Made when missing: npm and every XDG-following tool write there on their first run. */
const CREATED_CACHES = ['~/.npm', '~/.cache'];

export const SECRET_ENV_PATTERNS = [
  '*_API_KEY',
  '*_TOKEN',
  '*_SECRET',
  '*PASSWORD*',
  '*_SECRET_*',
  '*_ACCESS_KEY*',
  '*_PRIVATE_KEY',
  '*_CREDENTIALS',
];

/** Agent sockets: holding one is holding the user's keys. */
const SECRET_ENV_NAMES = ['SSH_AUTH_SOCK', 'GPG_AGENT_INFO'];

/** `~/x` and `~` expand to home; relative paths are relative to `base`. */
export function expandPath(path: string, home: string, base: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(base, path);
}

function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}

/**
 * The policy for commands run in `root` (the project, or an isolated writer's worktree: the same call with
 * another root and that worktree's git store). Pure: which paths exist is the backend's concern.
 */
export function buildSandboxPolicy(
  settings: SandboxSettings,
  root: string,
  extras: PolicyExtras = {},
): SandboxPolicy {
  const home = (p: string) => expandPath(p, settings.home, root);
  const gitStores = extras.gitStores ?? [];
  const caches = settings.readOnly ? [] : CACHE_DIRS.map(home);
  const writable = settings.readOnly
    ? []
    : unique([
        root,
        ...gitStores.filter((store) => !isWithin(store, root)),
        ...(extras.writable ?? []),
        ...caches,
      ]);
  // Read-only, the root and its git store are bound as they are: a private /tmp would hide them otherwise.
  const readOnly = settings.readOnly
    ? unique([root, ...gitStores, ...(extras.readOnly ?? [])])
    : unique([
        ...gitStores.flatMap((store) => [join(store, 'hooks'), join(store, 'config')]),
        ...(extras.readOnly ?? []),
      ]);
  const hiddenCandidates = [
    ...DEFAULT_HIDDEN_DIRS.map(home),
    settings.configDir,
    ...(settings.runtimeDir ? [settings.runtimeDir] : []),
    ...DEFAULT_HIDDEN_FILES.map(home),
    ...settings.hide.map(home),
  ];
  // Hiding a place that holds the root would hide the work itself: the root wins.
  const hidden = unique(hiddenCandidates.filter((path) => !isWithin(root, path)));
  return {
    root,
    writable,
    createMissing: settings.readOnly ? [] : CREATED_CACHES.map(home),
    readOnly,
    mounts: settings.readOnly ? [] : (extras.mounts ?? []),
    setEnv: extras.setEnv,
    hidden,
    privateTmp: true,
    network: settings.network && !settings.readOnly,
    pidNamespace: settings.pidNamespace,
    env: {
      names: unique([...SECRET_ENV_NAMES, ...settings.keyEnvNames]),
      patterns: SECRET_ENV_PATTERNS,
      allow: settings.envAllow,
    },
  };
}
