/**
 * A fresh client-chosen id: 16 random bytes in base64url, 22 characters. Each send gets one
 * (POST /agent/run's `client_id`: the bridge may then ask it once more when it got no answer, and
 * the daemon stores the message once however often it arrives), and so does each page load
 * (the `viewer` its streams name: new-sessions.ts).
 */
export function newClientId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}
