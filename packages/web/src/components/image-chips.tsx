import { formatByteSize, type Attachment } from '../image-attachment.js';

/**
 * The images attached to the message in the box, above it: a thumbnail, the file's name and size,
 * and a remove button (named for the file, so a screen reader says which) that Tab reaches.
 */
export function ImageChips({
  images,
  onRemove,
}: {
  images: readonly Attachment[];
  onRemove: (attachment: Attachment, index: number) => void;
}) {
  if (images.length === 0) return null;
  return (
    <ul className="image-chips" aria-label="Attached images">
      {images.map((attachment, index) => (
        <li key={attachment.id} className="image-chip">
          <img src={attachment.dataUrl} alt="" className="image-chip-thumb" />
          <span className="image-chip-text">
            <span className="image-chip-name" title={attachment.name}>
              {attachment.name || 'Pasted image'}
            </span>
            <span className="image-chip-size">{formatByteSize(attachment.bytes)}</span>
          </span>
          <button
            type="button"
            className="image-chip-remove"
            aria-label={`Remove ${attachment.name || 'pasted image'}`}
            title="Remove this image"
            onClick={() => onRemove(attachment, index)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/** A paper clip, for Attach image (its name is the button's aria-label). */
export function AttachIcon() {
  return (
    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
      <path
        d="M21 11.5l-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.9-8.9a3.7 3.7 0 0 1 5.2 5.2l-8.9 8.9a1.8 1.8 0 0 1-2.6-2.6l8.2-8.2"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
