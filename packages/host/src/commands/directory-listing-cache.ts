/**
 * SEC-004 (agent shell execution, git-escape), issue 21: directory listings kept between the git
 * repository scans of one workspace (git-write-protections.ts), which run twice a command (before
 * it, to protect every repository, and after it, for the ones it created) and read every directory
 * of the workspace outside package trees. A kept listing is served only while its directory is
 * provably unchanged, so a scan with it finds exactly what a scan without it finds.
 *
 * A directory's entries cannot change (created, removed, renamed in or out, a type changed by
 * remove and re-create) without its change time moving, and no process can set a change time back.
 * So a listing is served again when the directory, looked up by path without following a final
 * symlink, is still a directory with the same device, inode and change time. The change time ticks
 * with the kernel's coarse clock, though: a change within the same tick as the read can leave the
 * time as it was. So a listing whose change time lies less than WRAP_CACHE_RACY_MARGIN_MS before
 * the moment it was read is never served: the directory is read again. A path that is not a real
 * directory (a symlink git follows to one, for instance) is always read, never kept.
 *
 * One scan keeps only the listings it used, so what is kept is bounded by the scan's own bound
 * (GIT_REPOSITORY_SCAN_MAX_ENTRIES); listings are kept per scanned root, for at most
 * GIT_LISTING_CACHE_MAX_ROOTS roots (the least recently scanned goes first).
 *
 * What it does not catch: nothing the scan would see differently (file contents, git's config and
 * the like, are read by the scan itself each time, never kept here); a system clock set back by
 * more than the margin between a read and a change exactly onto the kept change time.
 */
import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { GIT_LISTING_CACHE_MAX_ROOTS, WRAP_CACHE_RACY_MARGIN_MS } from '@bastion/protocol';

interface KeptListing {
  dev: number;
  ino: number;
  changedMs: number;
  entries: Dirent[];
}

/** Reads the directories of one scan; `end()` keeps what it read for the next scan of the same root. */
export interface ListingReader {
  /** `dir`'s entries, or undefined when it cannot be read (gone, not a directory, no permission). */
  read(dir: string): Dirent[] | undefined;
  end(): void;
}

function readEntries(dir: string): Dirent[] | undefined {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
}

export class DirectoryListingCache {
  readonly #byRoot = new Map<string, Map<string, KeptListing>>();

  /** A reader for one scan of `root`. */
  begin(root: string): ListingReader {
    const kept = this.#byRoot.get(root) ?? new Map<string, KeptListing>();
    const used = new Map<string, KeptListing>();
    return {
      read(dir) {
        let stats;
        try {
          stats = lstatSync(dir);
        } catch {
          return undefined;
        }
        if (!stats.isDirectory()) return readEntries(dir);
        const was = used.get(dir) ?? kept.get(dir);
        if (was !== undefined && was.dev === stats.dev && was.ino === stats.ino && was.changedMs === stats.ctimeMs) {
          used.set(dir, was);
          return was.entries;
        }
        const readAtMs = Date.now();
        const entries = readEntries(dir);
        // Kept only when a change after this read must move the time: its tick is past the margin.
        if (entries !== undefined && stats.ctimeMs < readAtMs - WRAP_CACHE_RACY_MARGIN_MS)
          used.set(dir, { dev: stats.dev, ino: stats.ino, changedMs: stats.ctimeMs, entries });
        return entries;
      },
      end: () => {
        this.#byRoot.delete(root);
        this.#byRoot.set(root, used);
        while (this.#byRoot.size > GIT_LISTING_CACHE_MAX_ROOTS) {
          const oldest = this.#byRoot.keys().next().value;
          if (oldest === undefined) break;
          this.#byRoot.delete(oldest);
        }
      },
    };
  }
}
