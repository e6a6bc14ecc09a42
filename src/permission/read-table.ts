import { compileOptions, type OptionSpec, type OptionTable } from './option-parser.js';

/**
 * Commands that only read, each with the options known to be harmless and those known to write or run
 * (SPEC 6.5). A command is `read` only when every option it is given is in its table; an option the table
 * does not know makes it `write` (unknown), one that writes a named file `write` with that file checked,
 * one that runs a program `destructive`. Option lists follow each tool's manual (GNU coreutils, grep,
 * findutils, diffutils, ripgrep, fd, jq, tree).
 */
export interface ReaderSpec {
  options: OptionSpec;
  /** What the operands are: files read (default) or plain text (`echo`, `seq`). */
  operands?: 'paths' | 'text';
  /** Leading operands that are not files (a pattern, a program), unless one of `unless` gave it. */
  leading?: { count: number; unless: string[] };
  /** The operand at this 1-based position is a file written (`uniq IN OUT`, `xxd IN OUT`). */
  outputOperand?: number;
}

const COMMON = 'help version';
const CHECKSUM: ReaderSpec = {
  options: {
    short: 'b c t w z',
    long: `binary check tag text ignore-missing quiet status strict warn zero ${COMMON}`,
  },
};
const TEXT_ONLY: ReaderSpec = { options: { long: COMMON }, operands: 'text' };

const SPECS: Record<string, ReaderSpec> = {
  ls: {
    options: {
      short: 'a A b B c C d D f F g G h H i k l L m n N o p q Q r R s S t u U v x X Z 1 I: w: T:',
      long: `all almost-all author escape block-size= ignore-backups color[=] directory dired classify[=] file-type
        format= full-time group-directories-first no-group human-readable si dereference-command-line
        dereference-command-line-symlink-to-dir hide= hyperlink[=] indicator-style= inode ignore= kibibytes
        dereference literal numeric-uid-gid hide-control-chars show-control-chars quote-name quoting-style=
        reverse recursive size sort= time= time-style= tabsize= width= context zero ${COMMON}`,
    },
  },
  cat: {
    options: {
      short: 'A b e E n s t T u v',
      long: `show-all number-nonblank number squeeze-blank show-ends show-tabs show-nonprinting ${COMMON}`,
    },
  },
  head: {
    options: {
      short: 'c: n: q v z',
      long: `bytes= lines= quiet silent verbose zero-terminated ${COMMON}`,
      numeric: true,
    },
  },
  tail: {
    options: {
      short: 'c: f F n: q s: v z',
      long: `bytes= follow[=] lines= max-unchanged-stats= pid= quiet retry silent sleep-interval= verbose
        zero-terminated ${COMMON}`,
      numeric: true,
    },
  },
  wc: {
    options: {
      short: 'c m l L w',
      long: `bytes chars lines max-line-length words total= ${COMMON}`,
      reads: 'files0-from=',
    },
  },
  nl: {
    options: {
      short: 'b: d: f: h: i: l: n: p s: v: w:',
      long: `body-numbering= section-delimiter= footer-numbering= header-numbering= line-increment=
        join-blank-lines= number-format= no-renumber number-separator= starting-line-number= number-width=
        ${COMMON}`,
    },
  },
  tac: { options: { short: 'b r s:', long: `before regex separator= ${COMMON}` } },
  rev: { options: { long: COMMON } },
  cut: {
    options: {
      short: 'b: c: d: f: n s z',
      long: `bytes= characters= delimiter= fields= complement only-delimited output-delimiter= zero-terminated
        ${COMMON}`,
    },
  },
  tr: {
    options: { short: 'c C d s t', long: `complement delete squeeze-repeats truncate-set1 ${COMMON}` },
    operands: 'text',
  },
  paste: { options: { short: 'd: s z', long: `delimiters= serial zero-terminated ${COMMON}` } },
  join: {
    options: {
      short: 'a: e: i j: o: t: v: z 1: 2:',
      long: `ignore-case check-order nocheck-order header zero-terminated ${COMMON}`,
    },
  },
  comm: {
    options: {
      short: '1 2 3 z',
      long: `check-order nocheck-order output-delimiter= total zero-terminated ${COMMON}`,
    },
  },
  expand: { options: { short: 'i t:', long: `initial tabs= ${COMMON}` } },
  unexpand: { options: { short: 'a t:', long: `all first-only tabs= ${COMMON}` } },
  fold: { options: { short: 'b s w:', long: `bytes spaces width= ${COMMON}` } },
  fmt: {
    options: {
      short: 'c p: s t u w: g:',
      long: `crown-margin prefix= split-only tagged-paragraph uniform-spacing width= goal= ${COMMON}`,
    },
  },
  column: {
    options: {
      short: 'c: d e J l: L n: N: o: O: r: R: s: t T: E: H: W: x',
      long: `columns= table table-columns= table-name= table-order= table-right= table-truncate= table-noextreme=
        table-hide= table-wrap= table-noheadings json keep-empty-lines output-separator= separator= fillrows
        tree= tree-id= tree-parent= ${COMMON}`,
    },
  },
  pr: {
    options: {
      short: 'a c d D: e:: F h: i:: J l: m n:: N: o: r s:: S:: t T v w: W:',
      long: `across show-control-chars double-space date-format= expand-tabs[=] form-feed header= output-tabs[=]
        join-lines length= merge number-lines[=] first-line-number= indent= no-file-warnings separator[=]
        sep-string[=] omit-header omit-pagination show-nonprinting width= page-width= pages= columns= ${COMMON}`,
    },
  },
  sort: {
    options: {
      short: 'b d f g h i M n R r V c C k: m s S: t: T: u z',
      long: `ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort
        human-numeric-sort numeric-sort random-sort reverse sort= version-sort check[=] key= merge stable
        buffer-size= field-separator= temporary-directory= unique zero-terminated parallel= debug batch-size=
        ${COMMON}`,
      reads: 'files0-from= random-source=',
      writes: 'o: output=',
      runs: 'compress-program=',
    },
  },
  uniq: {
    options: {
      short: 'c d D f: i s: u w: z',
      long: `count repeated all-repeated[=] skip-fields= group[=] ignore-case skip-chars= unique check-chars=
        zero-terminated ${COMMON}`,
    },
    outputOperand: 2,
  },
  shuf: {
    options: {
      short: 'e i: n: r z',
      long: `echo input-range= head-count= repeat zero-terminated ${COMMON}`,
      reads: 'random-source=',
      writes: 'o: output=',
    },
  },
  numfmt: {
    options: {
      short: 'd: z',
      long: `debug delimiter= field= format= from= from-unit= grouping header[=] invalid= padding= round= suffix=
        to= to-unit= zero-terminated ${COMMON}`,
    },
    operands: 'text',
  },
  grep: {
    options: {
      short: `E F G P e: i y v w x z s q o b n h H l L c T Z a I r R d: D: A: B: C: m: U`,
      long: `extended-regexp fixed-strings basic-regexp perl-regexp regexp= ignore-case no-ignore-case invert-match
        word-regexp line-regexp null-data no-messages quiet silent only-matching byte-offset line-number
        no-line-number with-filename no-filename label= files-with-matches files-without-match count
        initial-tab null text binary-files= directories= devices= recursive dereference-recursive include=
        exclude= exclude-dir= line-buffered max-count= after-context= before-context= context= color[=]
        colour[=] binary ${COMMON}`,
      reads: 'f: file= exclude-from=',
      numeric: true,
    },
    leading: { count: 1, unless: ['e', 'regexp', 'f', 'file'] },
  },
  rg: {
    options: {
      short: `A: B: C: b c E: e: F g: H h i I j: l L M: m: N n o p q r: S s t: T: u U v V w x y z 0 a . d:`,
      long: `after-context= before-context= byte-offset case-sensitive color= colors= column context=
        context-separator= count count-matches crlf debug dfa-size-limit= encoding= engine= field-context-separator=
        field-match-separator= files files-with-matches files-without-match fixed-strings follow glob= glob-case-insensitive
        heading no-heading hidden no-hidden iglob= ignore-case ignore-file-case-insensitive include-zero invert-match
        json line-buffered line-number no-line-number line-regexp max-columns= max-columns-preview max-count= max-depth=
        max-filesize= mmap no-mmap multiline multiline-dotall no-config no-ignore no-ignore-dot no-ignore-exclude
        no-ignore-files no-ignore-global no-ignore-parent no-ignore-vcs no-messages no-require-git no-unicode null
        null-data one-file-system only-matching passthru passthrough path-separator= pcre2 pcre2-version quiet
        regex-size-limit= regexp= replace= search-zip-no smart-case sort= sortr= stats text threads= trim type=
        type-add= type-clear= type-list type-not= unrestricted vimgrep with-filename no-filename word-regexp auto-hybrid-regex
        binary no-binary block-buffered byte-offset files-with-matches hyperlink-format= ignore no-pcre2-unicode
        no-block-buffered sort-files max-depth= maxdepth= ${COMMON}`,
      reads: 'f: file= ignore-file=',
      changes: 'z search-zip',
      runs: 'pre= pre-glob=',
    },
    leading: { count: 1, unless: ['e', 'regexp', 'f', 'file', 'files', 'type-list'] },
  },
  fd: {
    options: {
      short: `H I u s i g F a l L p 0 q 1 d: t: e: E: S: c: j: o:`,
      long: `hidden no-hidden no-ignore ignore no-ignore-vcs ignore-vcs no-require-git no-ignore-parent unrestricted
        case-sensitive ignore-case glob regex fixed-strings and= absolute-path relative-path list-details follow
        no-follow full-path print0 max-depth= min-depth= exact-depth= prune type= extension= exclude= size=
        changed-within= changed-before= newer= older= owner= format= color= threads= max-results= quiet
        show-errors strip-cwd-prefix[=] one-file-system path-separator= max-one-result hyperlink[=] ${COMMON}`,
      reads: 'ignore-file= search-path= base-directory=',
      runs: 'x: exec= X: exec-batch=',
    },
    leading: { count: 1, unless: [] },
  },
  ag: {
    options: {
      short: 'a A: B: C: c D f g: G: H i l L m: n o p: Q r s S t u U v w z 0',
      long: `all-types after= before= context[=] count color nocolor column depth= follow files-with-matches
        files-without-matches filename nofilename hidden ignore= ignore-case ignore-dir= literal max-count=
        no-numbers numbers only-matching path-to-ignore= print-long-lines recurse norecurse search-binary
        silent skip-vcs-ignores smart-case case-sensitive stats unrestricted vimgrep word-regexp ${COMMON}`,
      changes: 'search-zip',
    },
    leading: { count: 1, unless: ['g'] },
  },
  tree: {
    options: {
      short: `a d l f x L: P: I: i A S n C X J H: T: s h D q N Q p u g F v t c U r`,
      long: `gitignore gitfile= ignore-case matchdirs metafirst prune info infofile= noreport charset= filelimit=
        timefmt= si du inodes device dirsfirst filesfirst sort= fromfile fromtabfile nolinks hintro= houtro= level=
        pattern= ${COMMON}`,
      writes: 'o: output=',
      changes: 'R',
    },
  },
  du: {
    options: {
      short: `0 a A b B: c d: D h H k l L m P s S t: x`,
      long: `null all apparent-size block-size= bytes total max-depth= dereference-args human-readable inodes
        count-links dereference no-dereference separate-dirs si summarize threshold= time[=] time-style= exclude=
        one-file-system ${COMMON}`,
      reads: 'files0-from= X: exclude-from=',
    },
  },
  df: {
    options: {
      short: 'a B: h H i k l P t: T x: v',
      long: `all block-size= human-readable si inodes local no-sync sync output[=] portability total type=
        print-type exclude-type= ${COMMON}`,
    },
  },
  file: {
    options: {
      short: 'b c d E e: F: h i k l L N n p P: r s S 0',
      long: `brief checking-printout debug exclude= exclude-quiet= extension separator= no-dereference mime
        mime-type mime-encoding keep-going list dereference no-pad no-buffer preserve-date parameter= raw
        special-files no-sandbox print0 apple ${COMMON}`,
      reads: 'f: files-from= m: magic-file=',
      changes: 'C compile',
      runs: 'z Z uncompress uncompress-noreport',
    },
  },
  stat: {
    options: {
      short: 'L f c: t',
      long: `dereference file-system cached= format= printf= terse ${COMMON}`,
    },
  },
  diff: {
    options: {
      short: `q s c C: u U: e n y W: p F: t T l r N x: X: S: i E Z b w B I: a d D: H`,
      long: `normal brief report-identical-files context[=] unified[=] ed rcs side-by-side width= left-column
        suppress-common-lines show-c-function show-function-line= label= expand-tabs initial-tab
        suppress-blank-empty recursive no-dereference new-file unidirectional-new-file ignore-file-name-case
        no-ignore-file-name-case exclude= starting-file= ignore-case ignore-tab-expansion
        ignore-trailing-space ignore-space-change ignore-all-space ignore-blank-lines ignore-matching-lines= text
        strip-trailing-cr ifdef= old-line-format= new-line-format= unchanged-line-format= line-format=
        old-group-format= new-group-format= unchanged-group-format= changed-group-format= minimal horizon-lines=
        speed-large-files color[=] palette= tabsize= paginate ${COMMON}`,
      reads: 'exclude-from= from-file= to-file=',
    },
  },
  cmp: {
    options: {
      short: 'b i: l n: s',
      long: `print-bytes ignore-initial= verbose bytes= quiet silent ${COMMON}`,
    },
  },
  md5sum: CHECKSUM,
  sha1sum: CHECKSUM,
  sha224sum: CHECKSUM,
  sha256sum: CHECKSUM,
  sha384sum: CHECKSUM,
  sha512sum: CHECKSUM,
  b2sum: CHECKSUM,
  cksum: {
    options: { short: 'a: l: b c t w z', long: `algorithm= length= base64 check raw tag untagged ${COMMON}` },
  },
  sum: { options: { short: 'r s', long: `sysv ${COMMON}` } },
  base64: { options: { short: 'd i w:', long: `decode ignore-garbage wrap= ${COMMON}` } },
  base32: { options: { short: 'd i w:', long: `decode ignore-garbage wrap= ${COMMON}` } },
  od: {
    options: {
      short: 'A: j: N: S:: t: v w:: a b c d f i l o s x',
      long: `address-radix= skip-bytes= read-bytes= strings[=] format= output-duplicates width[=] endian=
        traditional ${COMMON}`,
    },
  },
  hexdump: {
    options: {
      short: 'b c C d o x e: n: s: v L::',
      long: `one-byte-octal one-byte-char canonical two-bytes-decimal
      two-bytes-octal two-bytes-hex format= length= skip= no-squeezing color[=] ${COMMON}`,
      reads: 'f: format-file=',
    },
  },
  strings: {
    options: {
      short: 'a d f n: t: e: s: w U: o',
      long: `all data print-file-name bytes= radix= encoding= output-separator= include-all-whitespace unicode=
        ${COMMON}`,
    },
  },
  basename: { options: { short: 'a s: z', long: `multiple suffix= zero ${COMMON}` }, operands: 'text' },
  dirname: { options: { short: 'z', long: `zero ${COMMON}` }, operands: 'text' },
  realpath: {
    options: {
      short: 'e m L P q s z',
      long: `canonicalize-existing canonicalize-missing logical physical quiet relative-to= relative-base= strip
        no-symlinks zero ${COMMON}`,
    },
  },
  readlink: {
    options: {
      short: 'f e m n q s v z',
      long: `canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero ${COMMON}`,
    },
  },
  jq: {
    options: {
      short: 'r j a c n e s S C M R h V L:',
      long: `raw-output raw-output0 join-output ascii-output compact-output null-input exit-status slurp sort-keys
        color-output monochrome-output raw-input tab indent= unbuffered stream stream-errors seq arg== argjson==
        args jsonargs help version build-configuration`,
      reads: 'f: from-file= slurpfile== rawfile==',
    },
    leading: { count: 1, unless: ['f', 'from-file'] },
  },
  seq: {
    options: { short: 'f: s: w', long: `format= separator= equal-width ${COMMON}`, numeric: true },
    operands: 'text',
  },
  sleep: TEXT_ONLY,
  true: TEXT_ONLY,
  false: TEXT_ONLY,
  ':': TEXT_ONLY,
  pwd: { options: { short: 'L P', long: COMMON }, operands: 'text' },
  whoami: TEXT_ONLY,
  groups: TEXT_ONLY,
  tty: { options: { short: 's', long: `silent quiet ${COMMON}` }, operands: 'text' },
  nproc: { options: { long: `all ignore= ${COMMON}` }, operands: 'text' },
  uptime: { options: { short: 'p s', long: `pretty since ${COMMON}` }, operands: 'text' },
  free: {
    options: {
      short: 'b k m g h l t s: c: w v',
      long: `bytes kilo mega giga tera peta kibi mebi gibi tebi pebi human si lohi total seconds= count= wide
        committed ${COMMON}`,
    },
    operands: 'text',
  },
  id: {
    options: { short: 'a Z g G n r u z', long: `context group groups name real user zero ${COMMON}` },
    operands: 'text',
  },
  uname: {
    options: {
      short: 'a s n r v m p i o',
      long: `all kernel-name nodename kernel-release kernel-version machine processor hardware-platform
        operating-system ${COMMON}`,
    },
    operands: 'text',
  },
  arch: TEXT_ONLY,
  locale: {
    options: {
      short: 'a m c k v',
      long: `all-locales charmaps category-name keyword-name verbose ${COMMON}`,
    },
    operands: 'text',
  },
  printenv: { options: { short: '0', long: `null ${COMMON}` }, operands: 'text' },
  which: { options: { short: 'a s', long: COMMON }, operands: 'text' },
  whereis: { options: { short: 'b m s u l B: M: S: f' }, operands: 'text' },
  type: { options: { short: 'a f p P t' }, operands: 'text' },
  cal: {
    options: {
      short: '1 3 h j y Y m s S v w n: A: B: c:',
      long: `monday sunday julian year twelve months= span
    vertical week[=] color[=] reform= iso ${COMMON}`,
    },
    operands: 'text',
  },
  getconf: { options: { short: 'a v:', long: `all ${COMMON}` }, operands: 'text' },
  look: {
    options: { short: 'b d f a t:', long: `binary alphanum ignore-case alternative terminate= ${COMMON}` },
    leading: { count: 1, unless: [] },
  },
  pgrep: {
    options: {
      short: 'c d: f g: G: i l a n o O: P: s: t: u: U: v w x F: r: A',
      long: `count delimiter= full pgroup= group= ignore-case list-name list-full newest oldest older= parent=
        session= terminal= euid= uid= inverse lightweight exact pidfile= logpidfile runstates= ignore-ancestors
        cgroup= ns= nslist= env= ${COMMON}`,
    },
    operands: 'text',
  },
  dirs: { options: { short: 'c l p v' }, operands: 'text' },
  lsof: {
    options: {
      short:
        'a b c: C d: D: E e: f F: g:: h i:: K:: l L:: m: M n N o:: O P p: Q r:: R s:: S:: t T:: u: U v V w x:: X z:: Z::',
    },
    operands: 'text',
  },
  ps: {
    options: {
      short: 'A a d e f F g: G: H j l L M N o: O: p: q: s: t: T u: U: V w x y c P Z C:',
      long: `pid= ppid= sort= format= cols= columns= rows= lines= forest headers no-headers sid= tty= user= group= cumulative deselect ${COMMON}`,
    },
    operands: 'text',
  },
};

export interface CompiledReader {
  spec: ReaderSpec;
  table: OptionTable;
}

const compiled = new Map<string, CompiledReader>();

/** The reader entry of `name`, compiled on first use. */
export function readerSpec(name: string): CompiledReader | undefined {
  let entry = compiled.get(name);
  if (entry) return entry;
  const spec = Object.hasOwn(SPECS, name) ? SPECS[name] : undefined;
  if (!spec) return undefined;
  entry = { spec, table: compileOptions(spec.options) };
  compiled.set(name, entry);
  return entry;
}

/** `egrep`/`fgrep` are grep; `rgrep` is `grep -r`. */
export const READER_ALIASES: Record<string, string> = { egrep: 'grep', fgrep: 'grep', rgrep: 'grep' };
