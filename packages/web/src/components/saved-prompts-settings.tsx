/**
 * Settings → Saved prompts: where the user's prompt files are, how to add one, the prompts read
 * from there (name and description), each file left out with why, and Reload (the folder is read
 * afresh on every listing, so a file saved in an editor shows on the next read).
 */
import { useCallback, useEffect, useState } from 'react';
import type { BastionApi, PromptListResponse } from '@bastion/bridge';
import { describeError } from '../bastion.js';
import { plural } from '../image-attachment.js';
import { LabelledTable } from './labelled-table.js';

export function SavedPromptsSettings({ bastion }: { bastion: BastionApi }) {
  const [listing, setListing] = useState<PromptListResponse>();
  const [error, setError] = useState<string>();
  const [reading, setReading] = useState(false);
  /** How many reads have come in: the status line says a Reload read the folder again. */
  const [reads, setReads] = useState(0);

  const read = useCallback(async () => {
    setReading(true);
    try {
      setListing(await bastion.prompts.list());
      setError(undefined);
      setReads((count) => count + 1);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setReading(false);
    }
  }, [bastion]);
  useEffect(() => {
    void read();
  }, [read]);

  const folder = listing?.folder;
  return (
    <section className="card saved-prompts" aria-labelledby="saved-prompts-title">
      <h2 id="saved-prompts-title">Saved prompts</h2>
      <p className="muted">
        Save a Markdown file <code>NAME.md</code> in{' '}
        {folder === undefined ? 'the prompts folder' : <code>{folder}</code>}; type <code>/NAME</code> in the message
        box. <code>$ARGUMENTS</code> in it stands for what you type after the name. A description: front matter{' '}
        <code>description:</code> or the first line.
      </p>
      <p className="muted">
        Choosing one puts its text in the message box, where you read it and can change it; nothing is sent until you
        press Enter again.
      </p>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {listing === undefined ? (
        error === undefined && <p className="muted">Reading the folder…</p>
      ) : (
        <>
          <p role="status" className="saved-prompts-count">
            {listing.prompts.length === 0
              ? `No saved prompts yet: the folder holds no prompt file${listing.skipped.length > 0 ? ' that could be read' : ''}.`
              : `${plural(listing.prompts.length, 'saved prompt')}.`}
            {listing.skipped.length > 0 && ` ${plural(listing.skipped.length, 'file')} left out (below).`}
            {reads > 1 && ' Read again just now.'}
          </p>
          {listing.prompts.length > 0 && (
            <LabelledTable
              label="Saved prompts"
              rows={listing.prompts}
              rowKey={(prompt) => prompt.name}
              columns={[
                { label: 'Command', cell: (prompt) => <code>/{prompt.name}</code> },
                { label: 'Description', cell: (prompt) => prompt.description },
              ]}
            />
          )}
          {listing.skipped.length > 0 && (
            <>
              <h3 className="saved-prompts-skipped-title">Files left out</h3>
              <LabelledTable
                label="Files left out"
                rows={listing.skipped}
                rowKey={(skipped) => skipped.file}
                columns={[
                  { label: 'File', cell: (skipped) => <code>{skipped.file}</code> },
                  { label: 'Why', cell: (skipped) => skipped.reason },
                ]}
              />
            </>
          )}
        </>
      )}
      <div className="row">
        <button type="button" disabled={reading} onClick={() => void read()}>
          Reload
        </button>
      </div>
    </section>
  );
}
