/**
 * The markdown parser and highlighter, a chunk of its own (markdown.tsx loads it from the entry's
 * first module line; the newest rows paint as text until it is in). Model output is untrusted:
 * raw HTML in it is never rendered (`skipHtml`), URLs go through react-markdown's default filter
 * (no `javascript:`), links open in a new browsing context with `noopener noreferrer`, and images
 * are shown as links, never fetched. Highlighting is highlight.js through rehype-highlight: plain
 * functions over the syntax tree, no `eval`, so it runs under the page's nonce CSP. Only the
 * languages below are registered (a fence in another language renders as plain code):
 * highlight.js's grammars are most of this chunk.
 */
import { memo, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { CodeBlock } from './code-block.js';

/** The text of a rendered hast subtree (a code block's children), for the copy button. */
function textOf(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (node && typeof node === 'object' && 'props' in node) {
    return textOf((node.props as { children?: ReactNode }).children);
  }
  return '';
}

/** A fenced code block, highlighted or (`plain`) not. */
const codeBlock =
  (plain: boolean): Components['pre'] =>
  ({ children }) => (
    <CodeBlock
      language={
        /language-([\w+-]+)/.exec(
          String((children as { props?: { className?: string } } | undefined)?.props?.className ?? ''),
        )?.[1]
      }
      copyText={textOf(children).replace(/\n$/, '')}
      plain={plain}
    >
      {children}
    </CodeBlock>
  );

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
  img: ({ src, alt }) =>
    typeof src === 'string' && src !== '' ? (
      <a href={src} target="_blank" rel="noopener noreferrer">
        [image: {alt || src}]
      </a>
    ) : (
      <span>[image: {alt}]</span>
    ),
  pre: codeBlock(false),
  table: ({ children }) => (
    <div className="table-wrap">
      <table>{children}</table>
    </div>
  ),
};

const remarkPlugins = [remarkGfm];
/** The fence languages highlighted; their aliases (`sh`, `js`, `ts`, `py`, `html`, `yml`, `toml`…) come with them. */
const HIGHLIGHT_LANGUAGES = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  go,
  ini,
  java,
  javascript,
  json,
  kotlin,
  markdown,
  php,
  python,
  ruby,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};
const rehypePlugins = [
  [rehypeHighlight, { detect: false, ignoreMissing: true, languages: HIGHLIGHT_LANGUAGES }] as const,
] as never;
/** Past the reply's UI_HIGHLIGHT_MAX_CHARS (markdown.tsx): parsed, its code left as text. */
const plainCodeComponents: Components = { ...components, pre: codeBlock(true) };

/**
 * One block of markdown, parsed (markdown.tsx renders blocks without markdown syntax itself), its
 * fenced code highlighted unless `highlight` is false.
 */
export const ParsedMarkdownBlock = memo(function ParsedMarkdownBlock({
  text,
  highlight,
}: {
  text: string;
  highlight: boolean;
}) {
  return highlight ? (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components} skipHtml>
      {text}
    </ReactMarkdown>
  ) : (
    <ReactMarkdown remarkPlugins={remarkPlugins} components={plainCodeComponents} skipHtml>
      {text}
    </ReactMarkdown>
  );
});
