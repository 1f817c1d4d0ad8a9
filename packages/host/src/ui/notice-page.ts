/** A small static page for the UI server's notices. It reflects nothing from the request. */
export function noticePage(nonce: string, title: string, text: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bastion — ${title}</title>
<style nonce="${nonce}">body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1d2330}</style>
</head><body><h1>${title}</h1><p>${text}</p></body></html>
`;
}
