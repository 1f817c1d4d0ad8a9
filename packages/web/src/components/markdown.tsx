/**
 * The agent's text as GitHub-flavoured markdown, block by block. The parser and highlighter are
 * a chunk of their own (markdown-loader.ts): until it is in, a block with markdown syntax shows
 * its text as written (wrapped, same font and spacing), and each such block renders again,
 * parsed, when it arrives.
 */
import { memo, useEffect, useSyncExternalStore } from 'react';
import { UI_MARKDOWN_MAX_CHARS } from '@bastion/protocol';
import { markdownBlocks } from '../markdown-blocks.js';
import { loadedMarkdownRenderer, loadMarkdownRenderer, subscribeMarkdownRenderer } from './markdown-loader.js';

function useRenderer() {
  const loaded = useSyncExternalStore(subscribeMarkdownRenderer, loadedMarkdownRenderer);
  useEffect(() => {
    if (!loaded) loadMarkdownRenderer().catch(() => undefined);
  }, [loaded]);
  return loaded;
}

/** Characters without which a block (less its trailing blank lines) renders the same as markdown and as plain text. */
const MARKDOWN_SYNTAX = /[\n*_`#[\]|<>~\\!:=&-]|^\s*\d+[.)]|www\./i;

/**
 * One block of markdown. A block with no markdown syntax at all skips the parser: rows mount
 * again as a long transcript scrolls, and a parse per mount is most of a frame.
 */
const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string }) {
  const trimmed = text.trimEnd();
  const plain = !MARKDOWN_SYNTAX.test(trimmed);
  const loaded = useRenderer();
  if (plain) return <p>{trimmed}</p>;
  if (!loaded) return <p className="markdown-pending">{trimmed}</p>;
  return <loaded.ParsedMarkdownBlock text={text} />;
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
