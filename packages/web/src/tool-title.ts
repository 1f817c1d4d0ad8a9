/**
 * A tool call's one-line title, in words: "Read README.md", "Listed src/", "Searched TODO in src",
 * "Edited notes.txt", "Wrote notes.txt (12 lines)", "Ran npm test", "Updated the plan", and an MCP
 * server's tool as "server › tool". A call that did its work reads in the past tense; one that
 * waits, runs, was refused or was stopped reads as what it asks ("Edit notes.txt"). The raw tool
 * name stays on the card for precision; the input is the model's, read field by field.
 */
import { quoteArgv } from '@bastion/protocol';
import { mcpToolTitle } from './mcp-tool-call.js';
import { planProgress, planSteps } from './components/plan.js';
import type { ToolView } from './transcript.js';

export interface ToolTitle {
  /** What the call does: "Read", "Edited", "Updated the plan", "memory › read_graph", or an unknown tool's name. */
  action: string;
  /** What it acts on: a path, a pattern, a command line, a plan's progress; '' for nothing. */
  subject: string;
  /** Whether the subject is code (a path, pattern or command), shown in monospace. */
  code: boolean;
  /** Words after the subject: " in src", " (12 lines)", ", lines 3–4". */
  detail: string;
}

interface Fields {
  [name: string]: unknown;
}

function fieldsOf(value: unknown): Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};
}

const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The words each built-in tool's title starts with: done, and otherwise (asked, running, refused). */
const ACTIONS: Readonly<Record<string, readonly [done: string, asked: string]>> = {
  read_file: ['Read', 'Read'],
  list_dir: ['Listed', 'List'],
  search: ['Searched', 'Search'],
  find_files: ['Found files', 'Find files'],
  edit_file: ['Edited', 'Edit'],
  write_file: ['Wrote', 'Write'],
  run_command: ['Ran', 'Run'],
  update_plan: ['Updated the plan', 'Update the plan'],
  explore: ['Explored', 'Explore'],
};

/** The tools that only look: their cards open folded, their title saying what they looked at. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(['read_file', 'list_dir', 'search', 'find_files']);

/** " in PATH" for a folder other than the workspace's root. */
function within(input: Fields): string {
  const path = textOf(input.path);
  return path === undefined || path === '.' || path === '' ? '' : ` in ${path}`;
}

/** How many lines `content` has, a last line without its newline counted. */
export function lineCount(content: string): number {
  if (content === '') return 0;
  return content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
}

const plural = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;

/** `tool`'s title; `done`: it did its work (its result came and is no refusal). */
export function toolTitle(tool: Pick<ToolView, 'toolName' | 'input'>, done: boolean): ToolTitle {
  const name = tool.toolName;
  const mcp = mcpToolTitle(name);
  if (mcp !== undefined) return { action: mcp, subject: '', code: false, detail: '' };
  const words = ACTIONS[name];
  if (words === undefined) return { action: name, subject: '', code: false, detail: '' };
  const action = done ? words[0] : words[1];
  const input = fieldsOf(tool.input);
  const path = textOf(input.path);
  const title = (subject: string, detail = ''): ToolTitle => ({ action, subject, code: subject !== '', detail });
  switch (name) {
    case 'read_file': {
      const [start, end] = [input.start_line, input.end_line];
      const range =
        typeof start === 'number' || typeof end === 'number'
          ? `, lines ${typeof start === 'number' ? start : 1}–${typeof end === 'number' ? end : 'end'}`
          : '';
      return title(path ?? '', range);
    }
    case 'list_dir':
      return path === undefined || path === '.' || path === ''
        ? { action: `${action} the workspace folder`, subject: '', code: false, detail: '' }
        : title(path.endsWith('/') ? path : `${path}/`);
    case 'search': {
      const glob = textOf(input.glob);
      return title(textOf(input.pattern) ?? '', `${within(input)}${glob === undefined ? '' : ` (${glob})`}`);
    }
    case 'find_files':
      return title(textOf(input.pattern) ?? '', within(input));
    case 'write_file': {
      const content = textOf(input.content);
      return title(path ?? '', content === undefined ? '' : ` (${plural(lineCount(content), 'line', 'lines')})`);
    }
    case 'edit_file':
      return title(path ?? '');
    case 'run_command': {
      const args: unknown[] = Array.isArray(input.args) ? input.args : [];
      const argv = [input.command, ...args].map((word) => (typeof word === 'string' ? word : JSON.stringify(word)));
      return title(typeof input.command === 'string' ? quoteArgv(argv) : '');
    }
    case 'update_plan': {
      // A refused call's input is Bastion's marker, not a plan: it has no progress to tell.
      const steps = planSteps(tool.input);
      return { action, subject: steps.length === 0 ? '' : planProgress(steps), code: false, detail: '' };
    }
    default:
      // explore: the card's body shows the task whole, in prose.
      return { action, subject: '', code: false, detail: '' };
  }
}
