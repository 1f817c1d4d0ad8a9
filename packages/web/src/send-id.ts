/**
 * A fresh id for one send (POST /agent/run's `client_id`): 16 random bytes in base64url, 22
 * characters. With it the bridge may ask the send once more when it got no answer, and the daemon
 * stores the message once however often it arrives.
 */
export function newSendId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}
