/**
 * The folders this Bastion works in (the host's grants, as the daemon lists them), read once for
 * the page and again after a grant: a session of another folder is told apart without a request
 * each time a session opens.
 */
import { useEffect, useSyncExternalStore } from 'react';
import type { BastionApi } from '@bastion/bridge';

let roots: readonly string[] | undefined;
let loading: Promise<void> | undefined;
const listeners = new Set<() => void>();

function load(bastion: BastionApi): void {
  loading ??= bastion.workspaces.list().then(
    ({ workspaces }) => {
      roots = workspaces.map((workspace) => workspace.root);
      for (const listener of listeners) listener();
    },
    () => {
      // Asked again by the next view that needs them.
      loading = undefined;
    },
  );
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The granted roots, undefined until they are read. */
export function useGrantedRoots(bastion: BastionApi): readonly string[] | undefined {
  useEffect(() => load(bastion), [bastion]);
  return useSyncExternalStore(subscribe, () => roots);
}

/** Read the roots again (after a grant). */
export function reloadGrantedRoots(bastion: BastionApi): void {
  loading = undefined;
  load(bastion);
}
