/**
 * What the host acquired, released in reverse order of acquisition: a later resource may depend on
 * an earlier one (the sidecar on the srt session, the srt session's sandboxes on the private temp
 * dir), never the other way round. Every release runs once, even when an earlier one fails.
 */
export class ReleaseStack {
  readonly #releases: (() => unknown)[] = [];

  /** Register the release of something just acquired. */
  defer(release: () => unknown): void {
    this.#releases.push(release);
  }

  /** Run every release, newest first; rejects with the first failure after all of them ran. */
  async releaseAll(): Promise<void> {
    let failure: { error: unknown } | undefined;
    for (const release of this.#releases.splice(0).reverse()) {
      try {
        await release();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }
}
