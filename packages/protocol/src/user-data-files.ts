/** File names inside userData that more than one package reads (the daemon owns them; the host and CLI check them). */
export const SESSIONS_DB_FILE = 'sessions.db';
