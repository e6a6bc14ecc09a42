import type { CommandClass, OperandRef } from './command-class.js';
import { compileOptions, type OptionSpec, type OptionTable, parseArguments } from './option-parser.js';

/**
 * git is `read` only for a reading subcommand whose every option is on that subcommand's list (SPEC 6.5):
 * global `-c`, `--config-env` and `--exec-path` run programs (destructive); `--git-dir` and `--work-tree`
 * point git at another repository (write); `-C DIR` changes directory (the directory is checked as a read);
 * `--output` writes a file (write, checked); `--ext-diff`, `--textconv` and `grep -O` run programs.
 */

const GLOBAL = compileOptions({
  short: 'p P',
  long: `no-pager paginate no-replace-objects literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs
    no-optional-locks bare no-lazy-fetch no-advice namespace= version help html-path man-path info-path`,
  reads: 'C:',
  changes: 'git-dir= work-tree= list-cmds=',
  runs: 'c: config-env= exec-path[=] super-prefix=',
  posixOrder: true,
});

const DIFF_SHORT = 'p u s U:: z W M:: C:: B:: D l: S: G: R a b w';
const DIFF_LONG = `patch no-patch unified= raw patch-with-raw indent-heuristic no-indent-heuristic minimal patience
  histogram anchored= diff-algorithm= stat[=] compact-summary numstat shortstat dirstat[=] cumulative
  dirstat-by-file[=] summary patch-with-stat name-only name-status submodule[=] color[=] no-color color-moved[=]
  no-color-moved color-moved-ws= no-color-moved-ws word-diff[=] word-diff-regex= color-words[=] no-renames renames
  rename-empty no-rename-empty check ws-error-highlight= full-index binary abbrev[=] no-abbrev break-rewrites[=]
  find-renames[=] find-copies[=] find-copies-harder irreversible-delete diff-filter= find-object= pickaxe-all
  pickaxe-regex skip-to= rotate-to= relative[=] no-relative text ignore-cr-at-eol ignore-space-at-eol
  ignore-space-change ignore-all-space ignore-blank-lines ignore-matching-lines= inter-hunk-context=
  function-context exit-code quiet no-ext-diff no-textconv ignore-submodules[=] src-prefix= dst-prefix= no-prefix
  default-prefix line-prefix= ita-invisible-in-index ita-visible-in-index stat-width= stat-name-width=
  stat-count= stat-graph-width= output-indicator-new= output-indicator-old= output-indicator-context= histogram`;
const DIFF_EFFECTS = {
  reads: 'O: orderfile=',
  writes: 'output=',
  runs: 'ext-diff textconv',
};
const LOG_SHORT = 'n: i E F P L: g m c t r v 0 1 2 3 4 5 6 7 8 9';
const LOG_LONG = `max-count= skip= since= after= since-as-filter= until= before= author= committer= grep-reflog= grep=
  all-match invert-grep regexp-ignore-case basic-regexp extended-regexp fixed-strings perl-regexp remove-empty merges
  no-merges min-parents= max-parents= no-min-parents no-max-parents first-parent exclude-first-parent-only not all
  branches[=] tags[=] remotes[=] glob= exclude= exclude-hidden= reflog alternate-refs single-worktree ignore-missing
  bisect stdin cherry-mark cherry-pick left-only right-only cherry walk-reflogs merge boundary
  simplify-by-decoration full-history dense sparse simplify-merges ancestry-path[=] show-pulls date-order
  author-date-order topo-order reverse no-walk[=] do-walk format= pretty[=] abbrev-commit no-abbrev-commit oneline
  encoding= expand-tabs[=] no-expand-tabs notes[=] no-notes show-notes[=] show-notes-by-default show-signature
  relative-date date= parents children left-right graph show-linear-break[=] count objects objects-edge unpacked
  object-names no-object-names timestamp decorate[=] decorate-refs= decorate-refs-exclude= clear-decorations
  no-decorate source log-size follow no-follow mailmap no-mailmap use-mailmap no-use-mailmap full-diff
  diff-merges= no-diff-merges combined-all-paths cc dd remerge-diff header max-age= min-age= no-graph
  show-linear-break`;

function spec(short: string, long: string, extra: Partial<OptionSpec> = {}): OptionSpec {
  return { short, long: `${long} help`, ...extra };
}
const withDiff = (short: string, long: string, extra: Partial<OptionSpec> = {}) =>
  spec(`${DIFF_SHORT} ${short}`, `${DIFF_LONG} ${long}`, { ...DIFF_EFFECTS, ...extra });
const withLog = (short = '', long = '') => withDiff(`${LOG_SHORT} ${short}`, `${LOG_LONG} ${long}`);
const BLAME = spec(
  'b l t s c f n e w p M:: C:: L: S:',
  `root show-stats score-debug show-name show-number porcelain line-porcelain incremental encoding= date=
  progress no-progress minimal reverse= first-parent abbrev= color-lines color-by-age ignore-rev= since=
  show-email`,
  { reads: 'contents= ignore-revs-file=' },
);

/** Each reading subcommand's options. Subcommands that read only in some forms are decided in code below. */
const READ_SUBCOMMANDS: Record<string, OptionSpec> = {
  status: spec(
    's b u:: v z',
    `short branch show-stash porcelain[=] long verbose untracked-files[=] ignore-submodules[=] ignored[=]
    column[=] no-column ahead-behind no-ahead-behind renames no-renames find-renames[=] null`,
  ),
  diff: withDiff('', 'cached staged merge-base no-index'),
  'diff-tree': withDiff(
    'm c t v r',
    'root stdin no-commit-id always cc combined-all-paths merge-base pretty[=] format=',
  ),
  'diff-files': withDiff('c q 0 1 2 3', 'base ours theirs cc'),
  'diff-index': withDiff('m', 'cached merge-base'),
  log: withLog(),
  whatchanged: withLog(),
  show: withLog(),
  'rev-list': withLog(
    '',
    'count header bisect-vars bisect-all quiet disk-usage[=] progress= no-kept-objects',
  ),
  shortlog: withLog('s e w::', 'numbered summary email committer group= w[=]'),
  blame: BLAME,
  annotate: BLAME,
  grep: spec(
    'a i I w v h H E G F P n l L c o q z r e: A: B: C: W p 0 1 2 3 4 5 6 7 8 9',
    `cached no-index untracked no-exclude-standard exclude-standard recurse-submodules text no-textconv
    ignore-case max-depth= recursive no-recursive word-regexp invert-match full-name extended-regexp basic-regexp
    perl-regexp fixed-strings line-number column files-with-matches name-only files-without-match null
    only-matching count color[=] no-color break heading show-function context= after-context= before-context=
    function-context threads= and or not all-match quiet max-count=`,
    { reads: 'f:', runs: 'O:: open-files-in-pager[=] textconv' },
  ),
  'ls-files': spec(
    'c d m o i s u k f v t z',
    `cached deleted modified others ignored stage unmerged killed directory no-empty-directory eol exclude=
    exclude-per-directory= exclude-standard error-unmatch with-tree= full-name recurse-submodules abbrev[=] debug
    deduplicate sparse format= resolve-undo x:`,
    { reads: 'X: exclude-from=' },
  ),
  'ls-tree': spec(
    'd r t l z',
    'long name-only name-status object-only full-name full-tree abbrev[=] format=',
  ),
  'rev-parse': spec(
    'q',
    `abbrev-ref[=] show-toplevel show-prefix show-cdup git-dir git-common-dir absolute-git-dir is-inside-git-dir
    is-inside-work-tree is-bare-repository is-shallow-repository resolve-git-dir verify quiet sq short[=] symbolic
    symbolic-full-name all branches[=] tags[=] remotes[=] glob= exclude= disambiguate= local-env-vars git-path=
    shared-index-path show-object-format[=] show-ref-format since= after= until= before= revs-only no-revs flags
    no-flags default= prefix= sq-quote not path-format=`,
  ),
  describe: spec(
    '',
    'all tags contains abbrev= candidates= exact-match debug long match= exclude= always first-parent dirty[=] broken[=]',
  ),
  'cat-file': spec(
    't s e p',
    `batch[=] batch-check[=] batch-command[=] batch-all-objects buffer unordered follow-symlinks allow-unknown-type
    use-mailmap no-use-mailmap path= Z z`,
    { runs: 'textconv filters' },
  ),
  'merge-base': spec('a', 'all octopus independent is-ancestor fork-point'),
  'name-rev': spec('', 'tags refs= exclude= all stdin annotate-stdin name-only no-undefined always'),
  'for-each-ref': spec(
    '',
    `count= sort= format= color[=] shell perl python tcl points-at= merged[=] no-merged[=] contains[=]
    no-contains[=] ignore-case omit-empty exclude= include-root-refs stdin`,
  ),
  'count-objects': spec('v H', 'verbose human-readable'),
  version: spec('', 'build-options'),
  'show-ref': spec(
    'd s q',
    'head dereference hash[=] abbrev[=] tags heads branches verify exists quiet exclude-existing[=]',
  ),
  'check-ignore': spec('q v n z', 'quiet verbose non-matching stdin no-index'),
  'check-attr': spec('a z', 'all cached stdin source='),
  var: spec('l', ''),
  cherry: spec('v', 'abbrev[=]'),
  'show-branch': spec(
    'a r g::',
    `remotes all current topo-order date-order sparse more[=] list merge-base independent no-name sha1-name topics
    reflog[=] color[=] no-color`,
  ),
  'range-diff': withDiff('', 'creation-factor= no-dual-color left-only right-only notes[=] no-notes'),
};
const BRANCH_LIST = spec(
  'a r v l i',
  `all remotes verbose list show-current merged= no-merged= contains= no-contains= points-at= sort= format= color[=]
  no-color column[=] no-column abbrev= no-abbrev omit-empty ignore-case`,
);
const TAG_LIST = spec(
  'l i n::',
  'list contains= no-contains= merged= no-merged= points-at= sort= format= color[=] column[=] no-column ignore-case omit-empty',
);
const CONFIG_READ = spec(
  'l z',
  `get get-all get-regexp get-urlmatch list show-origin show-scope local global system worktree blob= name-only null
  type= bool int bool-or-int path expiry-date default= includes no-includes`,
  {
    reads: 'f: file=',
    runs: 'e edit',
    changes: 'add replace-all unset unset-all rename-section remove-section',
  },
);
/** Keys whose value git runs as a program or shell snippet (`git config core.pager 'sh -c …'`). */
const EXECUTING_KEY =
  /^(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy)|alias\..*|diff\..*\.(command|textconv)|diff\.external|merge\..*\.driver|filter\..*|credential\..*helper|sequence\.editor|gpg\..*program|gpg\.program|pager\..*|web\.browser|browser\..*\.cmd|man\..*\.cmd|difftool\..*|mergetool\..*|uploadpack\..*|receivepack\..*|remote\..*\.(uploadpack|receivepack|proxy)|protocol\..*|include\..*|includeif\..*|http\..*|core\.(worktree|attributesfile|excludesfile)|init\.templatedir)$/i;

const compiledSubcommands = new Map<string, OptionTable>();

function table(key: string, options: OptionSpec): OptionTable {
  let compiled = compiledSubcommands.get(key);
  if (!compiled) {
    compiled = compileOptions(options);
    compiledSubcommands.set(key, compiled);
  }
  return compiled;
}

export function classifyGit(words: string[]): CommandClass {
  const global = parseArguments(words, GLOBAL);
  const reads: OperandRef[] = [];
  let configured: string | undefined;
  for (const option of global.options) {
    if (option.info.name === 'c' || option.info.name === 'config-env') {
      // `-c user.name=x` only configures; `-c core.pager=…` or `-c alias.x=!…` runs a program.
      const setting = option.value ? (words[option.value.index]?.slice(option.value.offset) ?? '') : '';
      const key = setting.split('=')[0];
      if (key === '' || EXECUTING_KEY.test(key))
        return {
          safety: 'destructive',
          opaque: true,
          why: `git ${option.text} ${key} sets a program git runs`,
        };
      configured = key;
      continue;
    }
    if (option.info.effect === 'runs')
      return { safety: 'destructive', opaque: true, why: `git ${option.text} can run arbitrary commands` };
    if (option.info.effect === 'changes')
      return { safety: 'write', why: `git ${option.text} points git at another repository` };
    if (option.info.effect === 'reads' && option.value) reads.push(option.value);
  }
  if (global.unknown)
    return { safety: 'write', why: `git option ${global.unknown} is not known to be harmless` };
  const at = global.operands[0];
  const sub = at === undefined ? '' : words[at];
  const rest = at === undefined ? [] : words.slice(at);
  const result = classifySubcommand(sub, rest);
  if (result.reads) for (const ref of result.reads) reads.push({ ...ref, index: ref.index + at });
  const writes = result.writes?.map((ref) => ({ ...ref, index: ref.index + at }));
  if (configured && result.safety === 'read')
    return { safety: 'write', why: `git -c ${configured} changes configuration`, reads, writes };
  return { ...result, reads, writes };
}

/** `words[0]` is the subcommand; indexes in the result are into `words`. */
function classifySubcommand(sub: string, words: string[]): CommandClass {
  const args = words.slice(1);
  const has = (...flags: string[]) => args.some((a) => flags.includes(a));
  switch (sub) {
    case 'push':
      return { safety: 'destructive', why: 'git push is destructive' };
    case 'clean':
      return { safety: 'destructive', why: 'git clean is destructive' };
    case 'filter-branch':
    case 'filter-repo':
      return { safety: 'destructive', why: `git ${sub} rewrites history` };
    case 'reset':
      return has('--hard', '--merge', '--keep')
        ? { safety: 'destructive', why: 'git reset --hard is destructive' }
        : { safety: 'write', why: 'git reset' };
    case 'checkout':
      return has('--', '.', '-f', '--force') || args.some((a) => !a.startsWith('-'))
        ? { safety: 'destructive', why: 'git checkout of paths discards changes' }
        : { safety: 'write', why: 'git checkout' };
    case 'restore':
      return { safety: 'destructive', why: 'git restore discards changes' };
    case 'branch':
      if (has('-D', '--delete', '-d', '-M', '-C', '--force', '-f'))
        return { safety: 'destructive', why: 'git branch -d/-D deletes or overwrites a branch' };
      return listing('branch', words, BRANCH_LIST, [
        'l',
        'list',
        'contains',
        'no-contains',
        'merged',
        'no-merged',
        'points-at',
      ]);
    case 'tag':
      if (has('-d', '--delete', '-f', '--force'))
        return { safety: 'destructive', why: 'git tag -d/-f deletes or moves a tag' };
      return listing('tag', words, TAG_LIST, [
        'l',
        'list',
        'contains',
        'no-contains',
        'merged',
        'no-merged',
        'points-at',
        'n',
      ]);
    case 'stash':
      if (args[0] === 'drop' || args[0] === 'clear')
        return { safety: 'destructive', why: `git stash ${args[0]}` };
      if (args[0] === 'list' || args[0] === 'show')
        return byTable(`stash ${args[0]}`, words.slice(1), READ_SUBCOMMANDS.log);
      return { safety: 'write', why: 'git stash' };
    case 'reflog':
      if (args[0] === 'expire' || args[0] === 'delete')
        return { safety: 'destructive', why: `git reflog ${args[0]}` };
      return byTable('reflog', args[0] === 'show' ? words.slice(1) : words, READ_SUBCOMMANDS.log);
    case 'notes':
      if (args[0] === 'list' || args[0] === 'show') return byTable('notes', words.slice(1), spec('', ''));
      return { safety: 'write', why: 'git notes' };
    case 'remote':
      if (args.length === 0 || (args.length === 1 && /^(-v|--verbose)$/.test(args[0])))
        return { safety: 'read', why: 'git remote (listing) is read-only' };
      if (args[0] === 'get-url') return byTable('remote get-url', words.slice(1), spec('', 'push all'));
      return { safety: 'write', why: `git remote ${args[0]} changes remotes or reaches the network` };
    case 'config':
      return classifyGitConfig(words);
  }
  const options = Object.hasOwn(READ_SUBCOMMANDS, sub) ? READ_SUBCOMMANDS[sub] : undefined;
  if (!options) return { safety: 'write', why: `git ${sub || '(no subcommand)'}` };
  return byTable(sub, words, options);
}

function byTable(sub: string, words: string[], options: OptionSpec): CommandClass {
  const parsed = parseArguments(words, table(sub, options));
  const writes: (OperandRef & { truncates: boolean })[] = [];
  const reads: OperandRef[] = [];
  for (const option of parsed.options) {
    const { effect } = option.info;
    if (effect === 'runs')
      return { safety: 'destructive', opaque: true, why: `git ${sub} ${option.text} runs a program` };
    if (effect === 'changes')
      return { safety: 'write', why: `git ${sub} ${option.text} changes the repository` };
    if (effect === 'writes' && option.value) writes.push({ ...option.value, truncates: true });
    if (effect === 'reads' && option.value) reads.push(option.value);
  }
  if (parsed.unknown)
    return { safety: 'write', why: `git ${sub} option ${parsed.unknown} is not known to be harmless` };
  if (writes.length > 0) return { safety: 'write', why: `git ${sub} --output writes a file`, writes, reads };
  return { safety: 'read', why: `git ${sub} is read-only`, reads };
}

/** `git branch`/`git tag` list with no operands, or with patterns once a listing option is given. */
function listing(sub: string, words: string[], options: OptionSpec, listFlags: string[]): CommandClass {
  const parsed = parseArguments(words, table(sub, options));
  if (parsed.unknown) return { safety: 'write', why: `git ${sub} ${parsed.unknown}` };
  const listMode = parsed.options.some((o) => listFlags.includes(o.info.name));
  if (parsed.operands.length > 0 && !listMode) return { safety: 'write', why: `git ${sub} creates a ${sub}` };
  return { safety: 'read', why: `git ${sub} (listing) is read-only` };
}

function classifyGitConfig(words: string[]): CommandClass {
  const parsed = parseArguments(words, table('config', CONFIG_READ));
  for (const option of parsed.options) {
    if (option.info.effect === 'runs')
      return { safety: 'destructive', opaque: true, why: `git config ${option.text} runs an editor` };
  }
  const operands = parsed.operands.map((i) => words[i]);
  let verb: string | undefined = operands[0];
  const keyAt = verb === 'get' || verb === 'list' || verb === 'set' || verb === 'unset' ? 1 : 0;
  if (keyAt === 0) verb = undefined;
  const key = operands[keyAt];
  const setting =
    verb === 'set' ||
    verb === 'unset' ||
    parsed.options.some((o) => o.info.effect === 'changes') ||
    (verb === undefined && operands.length > 1 && !parsed.options.some((o) => /^get/.test(o.info.name)));
  if (setting) {
    if (key && EXECUTING_KEY.test(key))
      return { safety: 'destructive', opaque: true, why: `git config ${key} sets a program git runs` };
    return { safety: 'write', why: 'git config sets a value' };
  }
  if (parsed.unknown)
    return { safety: 'write', why: `git config option ${parsed.unknown} is not known to be harmless` };
  const reads = parsed.options.flatMap((o) => (o.info.effect === 'reads' && o.value ? [o.value] : []));
  return { safety: 'read', why: 'git config (reading) is read-only', reads };
}
