/**
 * When whoever reads the CLI's output goes away (`bastion run --json | head -1`), the next write
 * fails with EPIPE. That is the reader's choice, not a failure: the CLI stops the way Ctrl-C
 * stops it (the run is aborted, the host stops and nothing is left running) and exits 0, with no
 * stack trace. Any other output error still fails loudly.
 */
let closed = false;

/** Whether stdout or stderr lost its reader. */
export function outputClosed(): boolean {
  return closed;
}

export function stopWhenOutputCloses(): void {
  const onError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    if (closed) return;
    closed = true;
    // The same listeners Ctrl-C reaches: run aborts its run, start stops its host.
    process.emit('SIGINT', 'SIGINT');
  };
  process.stdout.on('error', onError);
  process.stderr.on('error', onError);
}
