/**
 * Test support for the approval questions' browser tests: a scripted agent turn that asks to run
 * `touch <marker>` and then says it is done, the wait for that turn to end, and a step that asks
 * for two commands at once.
 */
import type { Locator, Page } from 'playwright-core';
import type { ScriptedTurn } from '@bastion/test-support';

/** The agent asks to `touch marker`, then says "Done with marker.". */
export function touchTurns(marker: string): ScriptedTurn[] {
  return [
    { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: [marker] } },
    { kind: 'text', pieces: [`Done with ${marker}.`] },
  ];
}

/** Waits for the question `region` to go, the turn's reply, and the box to take a new message. */
export async function settleTouch(page: Page, region: Locator, marker: string): Promise<void> {
  await region.waitFor({ state: 'detached' });
  await page.getByText(`Done with ${marker}.`).waitFor();
  await page.locator('.composer-actions button.danger').waitFor({ state: 'detached' });
}

/** Two commands asked for in one step (`echo ran >> marker` each), then `reply` once both were answered. */
export function twoCallTurns(markers: readonly [string, string], reply: string): ScriptedTurn[] {
  return [
    {
      kind: 'tool-calls',
      calls: markers.map((marker) => ({
        name: 'run_command',
        input: { command: 'sh', args: ['-c', `echo ran >> ${marker}`] },
      })),
    },
    { kind: 'text', pieces: [reply] },
  ];
}
