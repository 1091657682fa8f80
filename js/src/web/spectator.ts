// The spectator: who watches a world from a browser. Its profile grants no
// skill permission at all — it reads the world only through the state
// stream (state/subscribe, with an optional area of interest), so it can
// neither write nor make the server render — and it is the only profile a
// browser gets without presenting the server's token.

/** The profile a browser without a token gets. */
export const SPECTATOR = "spectator";
