/**
 * The agent's text as GitHub-flavoured markdown, block by block. The parser and highlighter are
 * a chunk of their own (markdown-loader.ts): until it is in, a block with markdown syntax shows
 * its text as written (wrapped, same font and spacing), and each such block renders again,
 * parsed, when it arrives. A reply's code is highlighted up to UI_HIGHLIGHT_MAX_CHARS; a fenced
 * block past it that stands alone shows without the parser, as its code in a box of its own.
 */
import { Component, memo, useEffect, useSyncExternalStore, type ReactNode } from 'react';
import {
  UI_HIGHLIGHT_MAX_CHARS,
  UI_MARKDOWN_MAX_BLOCK_CHARS,
  UI_MARKDOWN_MAX_CHARS,
  UI_MARKDOWN_MAX_NESTING,
} from '@bastion/protocol';
import { holdsFence, loneFence, markdownBlocks } from '../markdown-blocks.js';
import { CodeBlock } from './code-block.js';
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

/** A line's leading list and quote markers (`- `, `* `, `+ `, `1. `, `>`), one at a time. */
const CONTAINER_MARKER = /^[ \t]{0,3}(?:[-*+](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)|>)[ \t]?/;

/** Does a line of `text` nest more list or quote markers than the parser is given? */
function nestsTooDeep(text: string): boolean {
  for (const line of text.split('\n')) {
    let rest = line;
    for (let depth = 0; ; depth += 1) {
      const marker = CONTAINER_MARKER.exec(rest);
      if (marker === null) break;
      if (depth >= UI_MARKDOWN_MAX_NESTING) return true;
      rest = rest.slice(marker[0].length);
    }
  }
  return false;
}

/** Why a block would stall the page or overflow the parser's stack, if it would: then it shows as written. */
function tooHeavy(text: string): string | undefined {
  if (text.length > UI_MARKDOWN_MAX_BLOCK_CHARS) return 'too long to format';
  return nestsTooDeep(text) ? 'nested too deep to format' : undefined;
}

/** Text shown as written, not as markdown: why, under it. */
function AsWritten({ text, why }: { text: string; why: string }) {
  return (
    <>
      <p className="markdown-pending">{text}</p>
      <p className="plain-note">Shown as written: {why}.</p>
    </>
  );
}

/** A block the parser threw on shows as its text: one bad block never takes the transcript with it. */
class PlainOnError extends Component<{ text: string; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override render(): ReactNode {
    return this.state.failed ? (
      <AsWritten text={this.props.text} why="it could not be formatted" />
    ) : (
      this.props.children
    );
  }
}

/** One fenced code block, unhighlighted and unparsed: its code as it is, in a box that scrolls. */
function PlainCode({ fence }: { fence: { language: string | undefined; code: string } }) {
  return (
    <CodeBlock language={fence.language} copyText={fence.code} plain>
      <code>{fence.code}</code>
    </CodeBlock>
  );
}

/**
 * One block of markdown. A block with no markdown syntax at all skips the parser: rows mount
 * again as a long transcript scrolls, and a parse per mount is most of a frame. Without
 * `highlight`, one fenced code block alone shows as PlainCode, and other code parsed stays
 * unhighlighted. One too long or nested too deep to parse safely (tooHeavy) shows as its text,
 * and so does one the parser fails on.
 */
const MarkdownBlock = memo(function MarkdownBlock({ text, highlight }: { text: string; highlight: boolean }) {
  const trimmed = text.trimEnd();
  const plain = !MARKDOWN_SYNTAX.test(trimmed);
  const loaded = useRenderer();
  if (plain) return <p>{trimmed}</p>;
  const fence = highlight ? undefined : loneFence(trimmed);
  if (fence) return <PlainCode fence={fence} />;
  const heavy = tooHeavy(trimmed);
  if (heavy !== undefined) return <AsWritten text={trimmed} why={heavy} />;
  if (!loaded) return <p className="markdown-pending">{trimmed}</p>;
  return (
    <PlainOnError key={text} text={trimmed}>
      <loaded.ParsedMarkdownBlock text={text} highlight={highlight} />
    </PlainOnError>
  );
});

/**
 * Which of `blocks` get their code highlighted: those holding fenced code, counted whole in
 * order, while they come to UI_HIGHLIGHT_MAX_CHARS. Earlier blocks keep their answer as a reply
 * streams on.
 */
function highlighted(blocks: readonly string[]): boolean[] {
  let code = 0;
  return blocks.map((block) => {
    if (!holdsFence(block)) return true;
    code += block.length;
    return code <= UI_HIGHLIGHT_MAX_CHARS;
  });
}

/**
 * Text too long to parse at all, as written: each fenced code block in it longer than
 * UI_HIGHLIGHT_MAX_CHARS in a code box (so at most one box per that many characters), the text
 * between them as it is, with a note saying why it shows so.
 */
function AsWrittenReply({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  let run = '';
  let asWritten = false;
  const endRun = () => {
    if (run.trim() !== '') {
      parts.push(<div key={parts.length}>{run.trimEnd()}</div>);
      asWritten = true;
    }
    run = '';
  };
  for (const block of markdownBlocks(text)) {
    const fence = block.length > UI_HIGHLIGHT_MAX_CHARS ? loneFence(block) : undefined;
    if (fence === undefined) {
      run += block;
      continue;
    }
    endRun();
    parts.push(<PlainCode key={parts.length} fence={fence} />);
  }
  endRun();
  return (
    <div className="plain-text">
      {parts}
      {asWritten && <p className="plain-note">Shown as written: this reply is too long to format.</p>}
    </div>
  );
}

/**
 * Markdown for text up to UI_MARKDOWN_MAX_CHARS; beyond that, as written (parsing it would stall
 * the page). The text is rendered block by block (markdownBlocks), each memoized: while a reply
 * streams, only its last block is parsed and laid out again.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  if (text.length > UI_MARKDOWN_MAX_CHARS) return <AsWrittenReply text={text} />;
  const blocks = markdownBlocks(text);
  const highlights = highlighted(blocks);
  return (
    <div className="markdown">
      {blocks.map((block, index) => (
        <MarkdownBlock key={index} text={block} highlight={highlights[index] ?? true} />
      ))}
    </div>
  );
});
