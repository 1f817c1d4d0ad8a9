/**
 * `bastion chat`'s prompt at a terminal, read with readline. A prompt may take several lines: a
 * line ending in `\` goes on to the next (the backslash dropped), and a paste is one prompt however
 * many lines it holds — the terminal is asked for bracketed paste (mode 2004) while the prompt
 * shows, so the lines between its start and end marks join the prompt in progress, which the Enter
 * after the paste sends. A terminal without bracketed paste delivers a pasted block as lines that
 * arrive at once: each is a prompt of its own, in order, and none is dropped.
 */
import { createInterface } from 'node:readline';

const BRACKETED_PASTE_ON = '\u001b[?2004h';
const BRACKETED_PASTE_OFF = '\u001b[?2004l';
const PROMPT = 'bastion> ';
/** The prompt of a line that continues the one before, as wide as PROMPT. */
const CONTINUATION = '     ... ';

export interface TerminalPromptOptions {
  /** Lines entered before, shared across showings (ArrowUp); readline adds each line entered. */
  history: string[];
  historySize: number;
  completer: (line: string) => [string[], string];
  /** Ends the reading as Ctrl-D does. */
  stop: AbortSignal;
  /** Text on the line when the prompt shows, as if typed (a rewound prompt, to edit and send again). */
  initial?: string | undefined;
}

/** What one showing of the prompt read: the prompts entered, and whether the person ended chat (Ctrl-D, Ctrl-C at an empty prompt, `stop`). */
export interface TerminalPrompts {
  prompts: string[];
  ended: boolean;
}

/**
 * Shows the prompt until a prompt is entered (more than one when their lines came at once), or
 * chat is ended; a prompt still being continued then is not sent.
 */
export function readTerminalPrompts(options: TerminalPromptOptions): Promise<TerminalPrompts> {
  return new Promise((resolve) => {
    const output = process.stderr;
    const terminal = createInterface({
      input: process.stdin,
      output,
      terminal: true,
      completer: options.completer,
      history: options.history,
      historySize: options.historySize,
    });
    const prompts: string[] = [];
    let lines: string[] = [];
    let pasting = false;
    let settling = false;
    let finished = false;
    const pasteMarks = (_text: string | undefined, key: { name?: string } | undefined) => {
      if (key?.name === 'paste-start') pasting = true;
      else if (key?.name === 'paste-end') pasting = false;
    };
    const pasteOff = () => output.write(BRACKETED_PASTE_OFF);
    const finish = (ended: boolean) => {
      if (finished) return;
      finished = true;
      process.stdin.off('keypress', pasteMarks);
      options.stop.removeEventListener('abort', end);
      if (output.isTTY) {
        pasteOff();
        process.off('exit', pasteOff);
      }
      terminal.close();
      resolve({ prompts, ended });
    };
    const end = () => finish(true);
    // Lines that came in one read (a paste without its marks) are all read before the prompt closes.
    const settle = () => {
      settling = false;
      if (lines.length === 0) finish(false);
    };
    terminal.on('line', (line) => {
      if (pasting || line.endsWith('\\')) {
        lines.push(pasting ? line : line.slice(0, -1));
        terminal.setPrompt(CONTINUATION);
        terminal.prompt();
        return;
      }
      lines.push(line);
      prompts.push(lines.join('\n'));
      lines = [];
      terminal.setPrompt(PROMPT);
      if (!settling) {
        settling = true;
        setImmediate(settle);
      }
    });
    // Ctrl-C drops what is typed of the prompt, as a shell does; at an empty prompt it ends chat.
    terminal.on('SIGINT', () => {
      if (lines.length === 0 && terminal.line === '') return end();
      lines = [];
      terminal.write('', { ctrl: true, name: 'e' });
      terminal.write('', { ctrl: true, name: 'u' });
      output.write('^C\n');
      terminal.setPrompt(PROMPT);
      terminal.prompt();
    });
    terminal.on('close', end);
    options.stop.addEventListener('abort', end);
    if (options.stop.aborted) return end();
    process.stdin.on('keypress', pasteMarks);
    if (output.isTTY) {
      output.write(BRACKETED_PASTE_ON);
      // A process ended while the prompt shows must not leave the terminal marking its pastes.
      process.once('exit', pasteOff);
    }
    terminal.setPrompt(PROMPT);
    terminal.prompt();
    if (options.initial !== undefined) terminal.write(options.initial);
  });
}
