/**
 * Settings' Notifications card: the switch for the browser's notifications while this tab is in
 * the background (notifications.ts). Turning it on asks the browser's permission, from that click
 * only; refused or unavailable, the switch stays off and says why in words.
 */
import { useState } from 'react';
import { notificationsSupported, readNotifyPref, saveNotifyPref } from '../notifications.js';

const DENIED =
  'The browser blocks notifications for this page, so this stays off. Allow notifications in the site’s settings (beside the address), then turn it on again.';
const DISMISSED =
  'The browser’s question was closed without an answer, so this stays off. Turn it on to be asked again.';
const UNSUPPORTED = 'This browser cannot show notifications for this page.';
const NOT_KEPT = 'This browser would not keep the choice (its storage is off), so this stays off.';

/** Why the switch is off while the person chose it, read as the card opens. */
function initialNote(): string | undefined {
  if (!notificationsSupported()) return UNSUPPORTED;
  if (readNotifyPref() && Notification.permission === 'denied') return DENIED;
  return undefined;
}

export function NotificationSettings() {
  const supported = notificationsSupported();
  const [on, setOn] = useState(() => supported && readNotifyPref() && Notification.permission === 'granted');
  const [note, setNote] = useState<string | undefined>(initialNote);
  const [asking, setAsking] = useState(false);

  const turnOn = () => {
    setAsking(true);
    setNote(undefined);
    Notification.requestPermission()
      .then((permission) => {
        if (permission !== 'granted') {
          setNote(permission === 'denied' ? DENIED : DISMISSED);
          return;
        }
        if (saveNotifyPref(true)) setOn(true);
        else setNote(NOT_KEPT);
      })
      .catch(() => setNote(UNSUPPORTED))
      .finally(() => setAsking(false));
  };

  return (
    <section className="card" aria-labelledby="notifications-title">
      <h2 id="notifications-title">Notifications</h2>
      <label className="notify-switch">
        <input
          type="checkbox"
          checked={on}
          disabled={!supported || asking}
          aria-describedby={note ? 'notifications-note notifications-why' : 'notifications-note'}
          onChange={(event) => {
            if (event.target.checked) {
              turnOn();
            } else {
              saveNotifyPref(false);
              setOn(false);
              setNote(undefined);
            }
          }}
        />
        <span>Notify me when a run finishes or needs my approval while this tab is in the background</span>
      </label>
      <p id="notifications-note" className="muted notify-state" role="status">
        {asking
          ? 'Waiting for the browser’s answer…'
          : on
            ? 'On in this browser. A notification names the session and the tool, never what was said or run.'
            : note
              ? 'Off.'
              : 'Off. Turning it on asks this browser’s permission.'}
      </p>
      {note && (
        <p id="notifications-why" className="inline-error notify-state" role="alert">
          {note}
        </p>
      )}
    </section>
  );
}
