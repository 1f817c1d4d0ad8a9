import { useEffect, useState } from 'react';
import type { BastionApi } from '@bastion/bridge';
import { imageFormatName } from '@bastion/protocol';
import { formatByteSize, imageAltText } from '../image-attachment.js';
import { sessionImageUrl, type ImagePart } from '../session-images.js';
import { Dialog } from './dialog.js';

/** An image of the session as it is fetched: its `data:` URL once in. */
type SessionImage = { state: 'loading' } | { state: 'ready'; url: string } | { state: 'failed' };

function useSessionImage(
  images: Pick<BastionApi['sessions'], 'image'>,
  sessionId: string,
  imageId: string,
): SessionImage {
  const [found, setFound] = useState<{ imageId: string; image: SessionImage }>();
  useEffect(() => {
    let live = true;
    sessionImageUrl(images, sessionId, imageId).then(
      (url) => live && setFound({ imageId, image: { state: 'ready', url } }),
      () => live && setFound({ imageId, image: { state: 'failed' } }),
    );
    return () => {
      live = false;
    };
  }, [images, sessionId, imageId]);
  return found?.imageId === imageId ? found.image : { state: 'loading' };
}

/**
 * The images a prompt carried, as thumbnails under it: each fetched when its row renders (the
 * list keeps rows far from the view out of the DOM, so a long session fetches only what is near),
 * and, clicked, shown larger in a dialog that Escape closes.
 */
export function MessageImages({
  images,
  sessionId,
  parts,
}: {
  images: Pick<BastionApi['sessions'], 'image'>;
  sessionId: string;
  parts: readonly ImagePart[];
}) {
  const [open, setOpen] = useState<ImagePart>();
  if (parts.length === 0) return null;
  return (
    <>
      <ul className="message-images" aria-label="Images with this message">
        {parts.map((part) => (
          <li key={part.image_id}>
            <Thumbnail images={images} sessionId={sessionId} part={part} onOpen={() => setOpen(part)} />
          </li>
        ))}
      </ul>
      {open && <ImageViewer images={images} sessionId={sessionId} part={open} onClose={() => setOpen(undefined)} />}
    </>
  );
}

function Thumbnail({
  images,
  sessionId,
  part,
  onOpen,
}: {
  images: Pick<BastionApi['sessions'], 'image'>;
  sessionId: string;
  part: ImagePart;
  onOpen: () => void;
}) {
  const image = useSessionImage(images, sessionId, part.image_id);
  const alt = imageAltText(part.name, part.media_type);
  return (
    <button
      type="button"
      className="message-image"
      title={`${alt} (${formatByteSize(part.bytes)}): show it larger`}
      onClick={onOpen}
    >
      {image.state === 'ready' ? (
        <img src={image.url} alt={alt} />
      ) : (
        <span className="message-image-placeholder">
          {image.state === 'loading' ? 'Loading image…' : 'Image not available'}
        </span>
      )}
    </button>
  );
}

function ImageViewer({
  images,
  sessionId,
  part,
  onClose,
}: {
  images: Pick<BastionApi['sessions'], 'image'>;
  sessionId: string;
  part: ImagePart;
  onClose: () => void;
}) {
  const image = useSessionImage(images, sessionId, part.image_id);
  const alt = imageAltText(part.name, part.media_type);
  const [size, setSize] = useState<string>();
  return (
    <Dialog title={alt} onCancel={onClose} wide className="image-viewer-dialog">
      <div className="image-viewer">
        {image.state === 'loading' ? (
          <p className="muted">Loading image…</p>
        ) : image.state === 'failed' ? (
          <p className="muted">This image could not be loaded.</p>
        ) : (
          <img
            src={image.url}
            alt={alt}
            onLoad={(event) => setSize(`${event.currentTarget.naturalWidth} × ${event.currentTarget.naturalHeight} px`)}
          />
        )}
      </div>
      <p className="muted image-viewer-meta">
        {[imageFormatName(part.media_type), formatByteSize(part.bytes), size].filter(Boolean).join(', ')}
      </p>
      <div className="dialog-actions">
        <button type="button" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </Dialog>
  );
}
