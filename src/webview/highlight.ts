import type { HLJSApi, LanguageFn } from 'highlight.js';
import hljs from 'highlight.js/lib/core';
import diff from 'highlight.js/lib/languages/diff';
import json from 'highlight.js/lib/languages/json';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';

/**
 * Syntax highlighting for closed code fences. The bundle budget (dist/webview/main.js ≤ 200 KB)
 * allows only a few of highlight.js's grammars: TypeScript (also for JavaScript), JSON,
 * XML/HTML and diff. Python, shell, YAML, C/C++, Go, Rust, Java, CSS, SQL and Markdown get small
 * grammars of our own (keywords, strings, comments, numbers, calls), a fraction of the size. No
 * auto-detection: a fence without a known language stays plain.
 */

/** Code longer than this is shown plain: highlighting is linear but not free. */
const maxHighlightChars = 100_000;

/** Keywords, types, literals, comments, strings, numbers and calls of a C-family language. */
function cFamily(name: string, keyword: string, type: string, literal: string, extra: (api: HLJSApi) => Mode[] = () => []): LanguageFn {
  return (api) => ({
    name,
    keywords: { keyword, type, literal },
    contains: [
      api.C_LINE_COMMENT_MODE,
      api.C_BLOCK_COMMENT_MODE,
      api.QUOTE_STRING_MODE,
      api.C_NUMBER_MODE,
      ...extra(api),
      { className: 'title.function', begin: /\b[A-Za-z_]\w*(?=\s*\()/, relevance: 0 },
    ],
  });
}

type Mode = Exclude<ReturnType<LanguageFn>['contains'], undefined>[number];

const charLiteral: Mode = { className: 'string', begin: /'(?:\\.|[^\\'\n])'/ };

const cLite = cFamily(
  'C',
  'auto break case const continue default do else enum extern for goto if inline register restrict return sizeof static struct switch typedef union ' +
    'volatile while class namespace template typename public private protected virtual override final new delete this using try catch throw ' +
    'constexpr noexcept operator friend explicit mutable static_cast dynamic_cast reinterpret_cast const_cast decltype co_await co_return',
  'void char short int long float double signed unsigned bool size_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t std string vector auto',
  'true false NULL nullptr',
  () => [charLiteral, { className: 'meta', begin: /^\s*#\s*[a-z]+/, end: /$/ }],
);

const goLite = cFamily(
  'Go',
  'break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var',
  'bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any',
  'true false nil iota',
  () => [charLiteral, { className: 'string', begin: /`/, end: /`/ }],
);

const rustLite = cFamily(
  'Rust',
  'as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return self Self static struct ' +
    'super trait type unsafe use where while macro_rules',
  'i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec Option Result Box',
  'true false None Some Ok Err',
  () => [charLiteral, { className: 'built_in', begin: /\b[a-z_]\w*!/ }, { className: 'meta', begin: /#!?\[/, end: /\]/ }],
);

const javaLite = cFamily(
  'Java',
  'abstract assert break case catch class continue default do else enum extends final finally for if implements import instanceof interface native ' +
    'new package private protected public record return static super switch synchronized this throw throws transient try var volatile while yield',
  'boolean byte char double float int long short void String Object Integer Long List Map',
  'true false null',
  () => [charLiteral, { className: 'meta', begin: /@[A-Za-z_]\w*/ }],
);

const pythonLite: LanguageFn = (api) => ({
  name: 'Python',
  keywords: {
    keyword:
      'and as assert async await break class continue def del elif else except finally for from global if import in is lambda match case ' +
      'nonlocal not or pass raise return try while with yield',
    built_in: 'print len range str int float list dict set tuple bool type isinstance open super enumerate zip map filter sorted self cls',
    literal: 'True False None',
  },
  contains: [
    api.HASH_COMMENT_MODE,
    { className: 'string', begin: /[rbfuRBFU]{0,2}(?:"""|''')/, end: /"""|'''/ },
    { className: 'string', begin: /[rbfuRBFU]{0,2}"/, end: /"/, illegal: /\n/, contains: [api.BACKSLASH_ESCAPE] },
    { className: 'string', begin: /[rbfuRBFU]{0,2}'/, end: /'/, illegal: /\n/, contains: [api.BACKSLASH_ESCAPE] },
    api.C_NUMBER_MODE,
    { className: 'meta', begin: /^\s*@[\w.]+/ },
    { className: 'title.function', begin: /\b[A-Za-z_]\w*(?=\s*\()/, relevance: 0 },
  ],
});

const shellLite: LanguageFn = (api) => ({
  name: 'Shell',
  keywords: {
    keyword: 'if then else elif fi for while until do done case esac in function return exit export local readonly unset shift',
    built_in: 'echo cd ls cat grep sed awk find rm cp mv mkdir chmod chown git npm npx node python pip curl wget sudo source test set',
  },
  contains: [
    api.HASH_COMMENT_MODE,
    { className: 'string', begin: /"/, end: /"/, contains: [api.BACKSLASH_ESCAPE, { className: 'variable', begin: /\$\{?[\w@#?*!-]+\}?/ }] },
    { className: 'string', begin: /'/, end: /'/ },
    { className: 'variable', begin: /\$\{?[\w@#?*!-]+\}?/ },
    { className: 'meta', begin: /^\s*\$ /, relevance: 0 },
    { className: 'attr', begin: /(?<=\s)--?[\w-]+/, relevance: 0 },
  ],
});

const yamlLite: LanguageFn = (api) => ({
  name: 'YAML',
  contains: [
    api.HASH_COMMENT_MODE,
    { className: 'attr', begin: /^\s*(?:- +)?[\w./"'-]+(?=\s*:(?:\s|$))/ },
    { className: 'meta', begin: /^---|^\.\.\./ },
    api.QUOTE_STRING_MODE,
    api.APOS_STRING_MODE,
    { className: 'literal', begin: /\b(?:true|false|null|yes|no|on|off)\b/ },
    api.C_NUMBER_MODE,
    { className: 'bullet', begin: /^\s*-(?=\s)/ },
  ],
});

const markdownLite: LanguageFn = () => ({
  name: 'Markdown',
  contains: [
    { className: 'section', begin: /^#{1,6}\s/, end: /$/ },
    { className: 'code', begin: /^(?:```|~~~)/, end: /^(?:```|~~~)\s*$/ },
    { className: 'code', begin: /`/, end: /`/ },
    { className: 'bullet', begin: /^\s*(?:[-*+]|\d+\.)\s/ },
    { className: 'strong', begin: /\*\*|__/, end: /\*\*|__/ },
    { className: 'emphasis', begin: /\*(?!\s)|_(?!\s)/, end: /\*|_/ },
    { className: 'link', begin: /\[[^\]\n]*\]\([^)\n]*\)/ },
    { className: 'quote', begin: /^>/, end: /$/ },
  ],
});

const cssLite: LanguageFn = (api: HLJSApi) => {
  const comment = api.C_BLOCK_COMMENT_MODE;
  const value = [
    comment,
    api.QUOTE_STRING_MODE,
    api.APOS_STRING_MODE,
    { className: 'number', begin: /#[0-9a-fA-F]{3,8}\b|-?\b\d+(?:\.\d+)?(?:%|[a-zA-Z]+)?/ },
    { className: 'built_in', begin: /\b[a-zA-Z-]+(?=\()/ },
  ];
  return {
    name: 'CSS',
    case_insensitive: true,
    contains: [
      comment,
      { className: 'keyword', begin: /@[a-zA-Z-]+/ },
      { className: 'selector-class', begin: /\.[a-zA-Z_-][\w-]*/ },
      { className: 'selector-pseudo', begin: /::?[a-zA-Z-]+/ },
      {
        begin: /\{/,
        end: /\}/,
        contains: [comment, { className: 'attribute', begin: /--?[a-zA-Z][\w-]*(?=\s*:)/ }, ...value, 'self'],
      },
      { className: 'selector-tag', begin: /\b[a-zA-Z][\w-]*\b/ },
    ],
  };
};

const sqlLite: LanguageFn = (api: HLJSApi) => ({
  name: 'SQL',
  case_insensitive: true,
  keywords: {
    keyword:
      'select from where and or not insert into values update set delete create table view index drop alter add column primary key foreign references ' +
      'join inner left right outer full cross on as group by order having limit offset union all distinct case when then else end is in like between ' +
      'exists returning with recursive begin commit rollback transaction default constraint unique check if replace asc desc',
    type: 'int integer bigint smallint text varchar char boolean bool date timestamp time real float double numeric decimal serial blob json jsonb uuid',
    literal: 'null true false',
    built_in: 'count sum avg min max coalesce now lower upper length substr cast',
  },
  contains: [
    api.COMMENT('--', '$'),
    api.C_BLOCK_COMMENT_MODE,
    { className: 'string', begin: /'/, end: /'/, contains: [{ begin: /''/ }] },
    { className: 'string', begin: /"/, end: /"/ },
    api.C_NUMBER_MODE,
  ],
});

let registered = false;

function register(): void {
  if (registered) {
    return;
  }
  registered = true;
  const languages: Record<string, LanguageFn> = {
    typescript,
    diff,
    json,
    xml,
    bash: shellLite,
    python: pythonLite,
    yaml: yamlLite,
    c: cLite,
    go: goLite,
    rust: rustLite,
    java: javaLite,
    markdown: markdownLite,
    css: cssLite,
    sql: sqlLite,
  };
  for (const [name, fn] of Object.entries(languages)) {
    hljs.registerLanguage(name, fn);
  }
  hljs.registerAliases(['js', 'javascript', 'jsx', 'mjs', 'cjs', 'ts', 'tsx', 'mts', 'cts'], { languageName: 'typescript' });
  hljs.registerAliases(['cpp', 'c++', 'cc', 'cxx', 'hpp', 'hh', 'h'], { languageName: 'c' });
  hljs.registerAliases(['sh', 'shell', 'zsh', 'console', 'shellsession'], { languageName: 'bash' });
  hljs.registerAliases(['html', 'svg', 'xhtml'], { languageName: 'xml' });
  hljs.registerAliases(['scss', 'less'], { languageName: 'css' });
  hljs.registerAliases(['patch'], { languageName: 'diff' });
  hljs.registerAliases(['jsonc', 'json5'], { languageName: 'json' });
  hljs.registerAliases(['golang'], { languageName: 'go' });
  hljs.registerAliases(['py', 'python3'], { languageName: 'python' });
  hljs.registerAliases(['yml'], { languageName: 'yaml' });
  hljs.registerAliases(['rs'], { languageName: 'rust' });
  hljs.registerAliases(['md', 'mdx'], { languageName: 'markdown' });
  hljs.registerAliases(['kotlin', 'kt', 'scala', 'cs', 'csharp'], { languageName: 'java' });
}

/** The language id of a fence info string, when a grammar for it is bundled. */
export function knownLanguage(info: string | undefined): string | undefined {
  const name = info?.trim().split(/\s+/)[0]?.toLowerCase();
  if (name === undefined || name === '') {
    return undefined;
  }
  register();
  return hljs.getLanguage(name) !== undefined ? name : undefined;
}

/** highlight.js's HTML for `code` (escaped text in `<span class="hljs-…">`), or undefined to show it plain. */
export function highlightToHtml(code: string, language: string): string | undefined {
  if (code.length > maxHighlightChars) {
    return undefined;
  }
  register();
  try {
    return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    return undefined;
  }
}
