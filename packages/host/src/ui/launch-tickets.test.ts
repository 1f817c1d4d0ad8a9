import { describe, expect, it } from 'vitest';
import { UI_LAUNCH_TICKET_BYTES, UI_LAUNCH_TICKET_TTL_MS, UI_MAX_LAUNCH_TICKETS } from '@bastion/protocol';
import { LaunchTickets } from './launch-tickets.js';

describe('LaunchTickets', () => {
  it('issues tickets of at least 128 random bits', () => {
    const tickets = new LaunchTickets();
    const ticket = tickets.issue();
    expect(UI_LAUNCH_TICKET_BYTES * 8).toBeGreaterThanOrEqual(128);
    expect(Buffer.from(ticket, 'base64url')).toHaveLength(UI_LAUNCH_TICKET_BYTES);
    expect(tickets.issue()).not.toBe(ticket);
  });

  it('redeems a ticket once; a replay is refused', () => {
    const tickets = new LaunchTickets();
    const ticket = tickets.issue();
    expect(tickets.redeem(ticket)).toBe(true);
    expect(tickets.redeem(ticket)).toBe(false);
  });

  it('refuses a ticket after 60 seconds, and it stays dead', () => {
    let now = 1_000_000;
    const tickets = new LaunchTickets({ now: () => now });
    const ticket = tickets.issue();
    now += UI_LAUNCH_TICKET_TTL_MS;
    expect(UI_LAUNCH_TICKET_TTL_MS).toBe(60_000);
    expect(tickets.redeem(ticket)).toBe(false);
    now -= 1;
    expect(tickets.redeem(ticket)).toBe(false);
  });

  it('accepts a ticket just before expiry', () => {
    let now = 5;
    const tickets = new LaunchTickets({ now: () => now });
    const ticket = tickets.issue();
    now += UI_LAUNCH_TICKET_TTL_MS - 1;
    expect(tickets.redeem(ticket)).toBe(true);
  });

  it('refuses unknown, malformed and altered tickets', () => {
    const tickets = new LaunchTickets();
    const ticket = tickets.issue();
    const altered = `${ticket.slice(0, -1)}${ticket.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [
      '',
      'x',
      `${ticket}=`,
      `${ticket} `,
      ticket.toUpperCase() === ticket ? 'y' : ticket.toUpperCase(),
      altered,
    ]) {
      expect(tickets.redeem(bad)).toBe(false);
    }
    expect(tickets.redeem(ticket)).toBe(true);
  });

  it('keeps at most a bounded number of outstanding tickets, dropping the oldest', () => {
    const tickets = new LaunchTickets();
    const first = tickets.issue();
    const rest = Array.from({ length: UI_MAX_LAUNCH_TICKETS }, () => tickets.issue());
    expect(tickets.redeem(first)).toBe(false);
    for (const ticket of rest) expect(tickets.redeem(ticket)).toBe(true);
  });
});
