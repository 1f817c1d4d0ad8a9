/**
 * The agent's text as GitHub-flavoured markdown. Model output is untrusted: raw HTML in it is
 * never rendered (`skipHtml`), URLs go through react-markdown's default filter (no `javascript:`),
 * links open in a new browsing context with `noopener noreferrer`, and images are shown as
 * links, never fetched. Highlighting is highlight.js through rehype-highlight: plain functions
 * over the syntax tree, no `eval`, so it runs under the page's nonce CSP.
 */
import { memo, useState, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { UI_MARKDOWN_MAX_CHARS } from '@bastion/protocol';
import { markdownBlocks } from '../markdown-blocks.js';

/** The text of a rendered hast subtree (a code block's children), for the copy button. */
function textOf(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (node && typeof node === 'object' && 'props' in node) {
    return textOf((node.props as { children?: ReactNode }).children);
  }
  return '';
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      type="button"
      className="small copy-button"
      onClick={() => {
        navigator.clipboard.writeText(text).then(
          () => setState('copied'),
          () => setState('failed'),
        );
        window.setTimeout(() => setState('idle'), 1_500);
      }}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
    </button>
  );
}

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
  pre: ({ children }) => {
    const language = /language-([\w+-]+)/.exec(
      String((children as { props?: { className?: string } } | undefined)?.props?.className ?? ''),
    )?.[1];
    return (
      <div className="code-block">
        <div className="code-head">
          <span>{language ?? 'code'}</span>
          <CopyButton text={textOf(children).replace(/\n$/, '')} />
        </div>
        <pre>{children}</pre>
      </div>
    );
  },
  table: ({ children }) => (
    <div className="table-wrap">
      <table>{children}</table>
    </div>
  ),
};

const remarkPlugins = [remarkGfm];
const rehypePlugins = [[rehypeHighlight, { detect: false, ignoreMissing: true }] as const] as never;

/** Characters without which a block (less its trailing blank lines) renders the same as markdown and as plain text. */
const MARKDOWN_SYNTAX = /[\n*_`#[\]|<>~\\!:=&-]|^\s*\d+[.)]|www\./i;

/**
 * One block of markdown. A block with no markdown syntax at all skips the parser: rows mount
 * again as a long transcript scrolls, and a parse per mount is most of a frame.
 */
const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string }) {
  const trimmed = text.trimEnd();
  if (!MARKDOWN_SYNTAX.test(trimmed)) return <p>{trimmed}</p>;
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components} skipHtml>
      {text}
    </ReactMarkdown>
  );
});

/**
 * Markdown for text up to UI_MARKDOWN_MAX_CHARS; beyond that, plain text (parsing it would stall
 * the page). The text is rendered block by block (markdownBlocks), each memoized: while a reply
 * streams, only its last block is parsed and laid out again.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  if (text.length > UI_MARKDOWN_MAX_CHARS) return <div className="plain-text">{text}</div>;
  return (
    <div className="markdown">
      {markdownBlocks(text).map((block, index) => (
        <MarkdownBlock key={index} text={block} />
      ))}
    </div>
  );
});
