/// <reference lib="dom" />
/** Test support: Settings opened from the app's header at one of its tabs (settings-view.tsx). */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

export async function openSettingsTab(page: Page, tab: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
  const chosen = page.getByRole('tablist', { name: 'Settings sections' }).getByRole('tab', { name: tab, exact: true });
  await chosen.click();
  await expect.poll(() => chosen.getAttribute('aria-selected')).toBe('true');
}
