/**
 * The `demo` model: an AI SDK LanguageModelV3 that runs offline and answers deterministically, so
 * anyone can try Bastion without an API key and the end-to-end tests have a real model to drive.
 * Every reply starts with "demo:" so it is never mistaken for a real model.
 *
 *   `read PATH`   → calls read_file
 *   `ls [PATH]`   → calls list_dir (a PATH may be a mention, `@src/app.ts`, as the message box puts it)
 *   `write PATH: TEXT` → calls write_file with TEXT as the file's lines
 *   `edit PATH: OLD => NEW` → calls edit_file, OLD replaced by NEW once
 *   `search TEXT` → calls search with TEXT as a literal string
 *   `$ CMD ARGS`  → calls run_command (words split by POSIX rules, no shell) when that tool exists;
 *                   otherwise says the shell is not available
 *   `mcp SERVER TOOL {json}` → calls that MCP server's tool (`mcp__SERVER__TOOL`) with the JSON object
 *   `explore TASK` → calls explore, whose explorer (the demo model again) is handed TASK, e.g. `read README.md`
 *   images attached → their formats and sizes (it cannot look at them)
 *   after a tool result → a one-line summary; anything else → what it can do
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { randomBytes } from 'node:crypto';
import { DEMO_DELTA_INTERVAL_MS, isToolFailureCode, mcpToolName, splitMcpToolName } from '@bastion/protocol';
import { splitShellWords } from './shell-words.js';

export const DEMO_PROVIDER_ID = 'demo';
export const DEMO_MODEL_ID = 'demo';

type Reply =
  | { kind: 'text'; text: string }
  | { kind: 'tool-call'; toolName: string; input: Record<string, unknown>; toolCallId: string };

export const DEMO_HELP =
  'demo: I am the offline demo model, not a real AI. Try "read README.md", "ls", "ls src", "find *.ts", ' +
  '"write notes.txt: hello", "edit notes.txt: hello => goodbye", "plan read; fix; test", "explore search TODO" ' +
  'or "$ ls -la" (the last one runs a command when the shell is enabled).';

const USAGE: LanguageModelV3Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/** A path as typed, without the `@` of a mention. */
function mentioned(path: string): string {
  const trimmed = path.trim();
  return trimmed.startsWith('@') && trimmed.length > 1 ? trimmed.slice(1) : trimmed;
}

function lastUserText(prompt: LanguageModelV3Prompt): string {
  const last = prompt.at(-1);
  if (!last || last.role !== 'user') return '';
  return last.content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('')
    .trim();
}

/** The images of the last message, if it is the user's: "PNG, 68 bytes" each. */
function lastUserImages(prompt: LanguageModelV3Prompt): string[] {
  const last = prompt.at(-1);
  if (!last || last.role !== 'user') return [];
  return last.content.flatMap((part) => {
    if (part.type !== 'file' || !part.mediaType.startsWith('image/')) return [];
    const bytes =
      part.data instanceof Uint8Array
        ? part.data.byteLength
        : typeof part.data === 'string'
          ? Buffer.from(part.data, 'base64').byteLength
          : 0;
    return [`${part.mediaType.slice('image/'.length).toUpperCase()}, ${bytes} bytes`];
  });
}

function toolInputs(prompt: LanguageModelV3Prompt): Map<string, unknown> {
  const inputs = new Map<string, unknown>();
  for (const message of prompt) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) if (part.type === 'tool-call') inputs.set(part.toolCallId, part.input);
  }
  return inputs;
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

function textField(value: unknown, name: string, fallback: string): string {
  const found = field(value, name);
  return typeof found === 'string' ? found : fallback;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function summarize(toolName: string, input: unknown, output: LanguageModelV3ToolResultOutput): string {
  if (output.type === 'execution-denied') {
    return `demo: ${toolName} was denied${output.reason ? ` (${output.reason})` : ''}, so nothing ran.`;
  }
  if (output.type === 'error-text' || output.type === 'error-json') return `demo: ${toolName} failed.`;
  const value = output.type === 'json' ? output.value : output.type === 'text' ? output.value : undefined;
  if (field(value, 'ok') === false) {
    const code = field(value, 'code');
    return `demo: ${toolName} ${isToolFailureCode(code) ? 'failed' : 'was refused'} (${String(code)}: ${String(field(value, 'message'))}).`;
  }
  const path = textField(input, 'path', '.');
  switch (toolName) {
    case 'read_file': {
      if (field(value, 'binary') === true)
        return `demo: ${path} is binary (${String(field(value, 'size'))} bytes), so read_file shows none of it.`;
      const content = textField(value, 'content', '');
      const firstLine = clip(content.split('\n').find((line) => line.trim().length > 0) ?? '', 80);
      const truncated = field(value, 'truncated') === true ? ', truncated' : '';
      return `demo: read ${path} (${String(field(value, 'size'))} bytes${truncated}); it starts with "${firstLine}".`;
    }
    case 'list_dir': {
      const entries = (field(value, 'entries') as { name: string }[] | undefined) ?? [];
      const names = entries.slice(0, 10).map((entry) => entry.name);
      return `demo: ${path} has ${entries.length} entries${names.length > 0 ? `: ${names.join(', ')}${entries.length > 10 ? ', …' : ''}` : ''}.`;
    }
    case 'search': {
      const matches = (field(value, 'matches') as unknown[] | undefined) ?? [];
      return `demo: search found ${matches.length} match${matches.length === 1 ? '' : 'es'}.`;
    }
    case 'find_files': {
      const paths = (field(value, 'paths') as string[] | undefined) ?? [];
      const shown = paths.slice(0, 10);
      return `demo: ${paths.length} file${paths.length === 1 ? '' : 's'} match ${String(field(input, 'pattern'))}${shown.length > 0 ? `: ${shown.join(', ')}${paths.length > 10 ? ', …' : ''}` : ''}.`;
    }
    case 'write_file':
      return `demo: wrote ${path} (${String(field(value, 'bytes'))} bytes${field(value, 'created') === true ? ', a new file' : ''}).`;
    case 'edit_file':
      return `demo: edited ${path} (${String(field(value, 'replacements'))} replacement).`;
    case 'update_plan':
      return `demo: a plan of ${String(field(value, 'steps'))} steps, shown as a checklist.`;
    case 'run_command':
      return `demo: ${String(field(input, 'command'))} exited with code ${String(field(value, 'exit_code'))}.`;
    case 'explore': {
      const calls = Number(field(value, 'tool_calls'));
      const said = clip(textField(value, 'answer', '').replace(/\s+/g, ' ').trim(), 160);
      return `demo: the explorer answered after ${calls} tool call${calls === 1 ? '' : 's'}: "${said}"`;
    }
    default: {
      const mcp = splitMcpToolName(toolName);
      if (mcp === undefined) return `demo: ${toolName} finished.`;
      const said = clip(textField(value, 'text', '').replace(/\s+/g, ' ').trim(), 120);
      const how = field(value, 'is_error') === true ? 'answered with an error' : 'answered';
      return `demo: ${mcp.tool} of the MCP server ${mcp.server} ${how}: "${said}".`;
    }
  }
}

/** Decide the demo's reply to a prompt (deterministic, but for a tool call's id). */
export function demoReply(options: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>): Reply {
  const { prompt } = options;
  const last = prompt.at(-1);
  if (last?.role === 'tool') {
    const inputs = toolInputs(prompt);
    const lines = last.content
      .filter((part) => part.type === 'tool-result')
      .map((part) => summarize(part.toolName, inputs.get(part.toolCallId), part.output));
    return { kind: 'text', text: lines.join(' ') || 'demo: done.' };
  }
  const images = lastUserImages(prompt);
  if (images.length > 0) {
    return {
      kind: 'text',
      text: `demo: ${images.length} image${images.length === 1 ? '' : 's'} received (${images.join('; ')}); the demo model cannot look at images.`,
    };
  }
  const text = lastUserText(prompt);
  // Random, so never used twice in a session: nothing in the prompt is (a number from its length
  // repeated once a compaction shortened it). The agent loop gives each call its own id anyway.
  const toolCallId = `demo-call-${randomBytes(9).toString('base64url')}`;
  const hasTool = (name: string) => (options.tools ?? []).some((tool) => tool.name === name);
  if (text.startsWith('$ ')) {
    if (!hasTool('run_command')) {
      return {
        kind: 'text',
        text: 'demo: the shell is not available here, so I cannot run commands. Try "ls" or "read PATH".',
      };
    }
    const split = splitShellWords(text.slice(2));
    if (!split.ok || split.words.length === 0) {
      return {
        kind: 'text',
        text: `demo: I could not split that command (${split.ok ? 'it is empty' : split.reason}).`,
      };
    }
    const [command, ...args] = split.words as [string, ...string[]];
    return { kind: 'tool-call', toolName: 'run_command', input: { command, args }, toolCallId };
  }
  const read = /^read\s+(\S.*)$/s.exec(text);
  if (read?.[1] && hasTool('read_file')) {
    return { kind: 'tool-call', toolName: 'read_file', input: { path: mentioned(read[1]) }, toolCallId };
  }
  const ls = /^ls(?:\s+(\S.*))?$/s.exec(text);
  if (ls && hasTool('list_dir')) {
    return { kind: 'tool-call', toolName: 'list_dir', input: { path: ls[1] ? mentioned(ls[1]) : '.' }, toolCallId };
  }
  // `write PATH: TEXT` and `edit PATH: OLD => NEW`: the file tools, to try diffs, approvals and undo offline.
  const write = /^write\s+(\S+):\s(.*)$/s.exec(text);
  if (write?.[1] && write[2] !== undefined && hasTool('write_file')) {
    const content = write[2].endsWith('\n') ? write[2] : `${write[2]}\n`;
    return { kind: 'tool-call', toolName: 'write_file', input: { path: mentioned(write[1]), content }, toolCallId };
  }
  const edit = /^edit\s+(\S+):\s(.+?)\s=>\s(.*)$/s.exec(text);
  if (edit?.[1] && edit[2] && edit[3] !== undefined && hasTool('edit_file')) {
    return {
      kind: 'tool-call',
      toolName: 'edit_file',
      input: { path: mentioned(edit[1]), old_string: edit[2], new_string: edit[3] },
      toolCallId,
    };
  }
  // `plan A; B; C`: update_plan with the first step in progress and the rest to do.
  const plan = /^plan\s+(\S.*)$/s.exec(text);
  const steps = plan?.[1]
    ?.split(';')
    .map((step) => step.trim())
    .filter((step) => step !== '');
  if (steps && steps.length > 0 && hasTool('update_plan')) {
    return {
      kind: 'tool-call',
      toolName: 'update_plan',
      input: { steps: steps.map((step, index) => ({ step, status: index === 0 ? 'in_progress' : 'pending' })) },
      toolCallId,
    };
  }
  const find = /^find\s+(\S+)$/.exec(text);
  if (find?.[1] && hasTool('find_files')) {
    return { kind: 'tool-call', toolName: 'find_files', input: { pattern: find[1] }, toolCallId };
  }
  const search = /^search\s+(\S.*)$/s.exec(text);
  if (search?.[1] && hasTool('search')) {
    return {
      kind: 'tool-call',
      toolName: 'search',
      input: { pattern: search[1].trim(), fixed_strings: true },
      toolCallId,
    };
  }
  const explore = /^explore\s+(\S.*)$/s.exec(text);
  if (explore?.[1] && hasTool('explore')) {
    return { kind: 'tool-call', toolName: 'explore', input: { task: explore[1].trim() }, toolCallId };
  }
  // `mcp SERVER TOOL {json}`: that MCP server's tool, with the JSON object as its arguments.
  const mcp = /^mcp\s+(\S+)\s+(\S+)(?:\s+(\S.*))?$/s.exec(text);
  if (mcp?.[1] && mcp[2]) {
    const name = mcpToolName(mcp[1], mcp[2]);
    if (name === undefined || !hasTool(name)) {
      return {
        kind: 'text',
        text: `demo: no MCP tool ${mcp[2]} of a server ${mcp[1]} is offered here (Settings → MCP servers lists them).`,
      };
    }
    let input: unknown = {};
    try {
      input = mcp[3] === undefined ? {} : JSON.parse(mcp[3]);
    } catch {
      return { kind: 'text', text: 'demo: the arguments after the tool must be one JSON object.' };
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return { kind: 'text', text: 'demo: the arguments after the tool must be one JSON object.' };
    }
    return { kind: 'tool-call', toolName: name, input: input as Record<string, unknown>, toolCallId };
  }
  return { kind: 'text', text: DEMO_HELP };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Words with their following space, so the deltas concatenate back to the text exactly. */
function deltas(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function finishReason(reply: Reply): LanguageModelV3FinishReason {
  return reply.kind === 'tool-call' ? { unified: 'tool-calls', raw: undefined } : { unified: 'stop', raw: undefined };
}

export function createDemoModel(modelId: string = DEMO_MODEL_ID, intervalMs = DEMO_DELTA_INTERVAL_MS): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: DEMO_PROVIDER_ID,
    modelId,
    supportedUrls: {},
    doGenerate(options) {
      const reply = demoReply(options);
      const content: LanguageModelV3Content[] =
        reply.kind === 'text'
          ? [{ type: 'text', text: reply.text }]
          : [
              {
                type: 'tool-call',
                toolCallId: reply.toolCallId,
                toolName: reply.toolName,
                input: JSON.stringify(reply.input),
              },
            ];
      return Promise.resolve({ content, finishReason: finishReason(reply), usage: USAGE, warnings: [] });
    },
    doStream(options) {
      const reply = demoReply(options);
      const signal = options.abortSignal;
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      const paced: LanguageModelV3StreamPart[] = [];
      if (reply.kind === 'text') {
        parts.push({ type: 'text-start', id: 'demo-text' });
        for (const delta of deltas(reply.text)) paced.push({ type: 'text-delta', id: 'demo-text', delta });
        paced.push({ type: 'text-end', id: 'demo-text' });
      } else {
        paced.push({
          type: 'tool-call',
          toolCallId: reply.toolCallId,
          toolName: reply.toolName,
          input: JSON.stringify(reply.input),
        });
      }
      paced.push({ type: 'finish', usage: USAGE, finishReason: finishReason(reply) });
      let index = 0;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
        },
        async pull(controller) {
          const part = paced[index];
          if (part === undefined) {
            controller.close();
            return;
          }
          if (part.type === 'text-delta' && intervalMs > 0) await sleep(intervalMs, signal);
          index += 1;
          controller.enqueue(part);
        },
      });
      return Promise.resolve({ stream });
    },
  };
}
