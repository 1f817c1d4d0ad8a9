/** Where the CLI speaks: JSON lines for machines, friendly lines for people. */
export interface Output {
  event(object: Record<string, unknown>): void;
  say(line: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    event: (object) => {
      if (json) process.stdout.write(`${JSON.stringify(object)}\n`);
    },
    say: (line) => {
      if (!json) process.stdout.write(`${line}\n`);
    },
  };
}
